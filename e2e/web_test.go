package e2e

// The room in a browser (issue 37, `pullcept web`): the real binary's page
// in real Chromium (Debian's chromium, driven by chromedp), and its
// listener's refusals over plain HTTP.

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/gorilla/websocket"
)

var webURLLine = regexp.MustCompile(`(?m)^(http://127\.0\.0\.1:\d+)/#token=([0-9a-f]{64})$`)

// openWeb runs `pullcept web` for home (the server started if none runs)
// and returns the page's address and its token.
func openWeb(t *testing.T, home string, env []string) (base, token string) {
	t.Helper()
	res := pullceptCmd(t, home, env, "web")
	m := webURLLine.FindStringSubmatch(res.out)
	if res.code != 0 || m == nil {
		t.Fatalf("pullcept web: exit %d\n%s%s", res.code, res.out, res.err)
	}
	return m[1], m[2]
}

// webArtifacts is where the screenshots are kept for a person to look at:
// $PULLCEPT_ARTIFACTS, else a folder under the temp folder that the tests
// do not remove; its path is in the test's log.
func webArtifacts(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("PULLCEPT_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "pullcept-web-screenshots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// browser is a headless Chromium for the test; each call of tab is a
// separate browser context (its own cookies): another browser.
type browser struct {
	t     *testing.T
	alloc context.Context
	first context.Context
	used  bool
}

func startBrowser(t *testing.T) *browser {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		required(t, "chromium is not installed: the page is tested in a real browser (.ci/run installs it)")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path),
		chromedp.NoSandbox, chromedp.WindowSize(1280, 900), chromedp.Flag("disable-gpu", true))
	alloc, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	first, cancelFirst := chromedp.NewContext(alloc)
	t.Cleanup(cancelFirst)
	if err := chromedp.Do(first); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	return &browser{t: t, alloc: alloc, first: first}
}

// tab is a new browser context (separate cookies) with a time limit.
func (b *browser) tab() context.Context {
	b.t.Helper()
	var ctx context.Context
	var cancel context.CancelFunc
	if !b.used {
		b.used = true
		ctx, cancel = chromedp.NewContext(b.first)
	} else {
		ctx, cancel = chromedp.NewContext(b.first, chromedp.WithNewBrowserContext())
	}
	b.t.Cleanup(cancel)
	ctx, cancel2 := context.WithTimeout(ctx, 45*time.Second)
	b.t.Cleanup(cancel2)
	return ctx
}

func cdp(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// waitJS polls a JavaScript condition in the page until it is true.
func waitJS(t *testing.T, ctx context.Context, what, expr string) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
		if png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)); err == nil {
			path := filepath.Join(webArtifacts(t), "failed-"+t.Name()+".png")
			_ = os.WriteFile(path, png, 0o644)
			t.Logf("the page when it failed: %s", path)
		}
		body, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
		t.Fatalf("waiting for %s: %v\nthe page's text:\n%s", what, err, body)
	}
}

func evalJS[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	path := filepath.Join(webArtifacts(t), name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// jsString is s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestWebPageRoomWithTerminalAndSecondBrowser: without the token the page
// shows nothing; with it, the cookie is HttpOnly and SameSite=Strict and the
// token leaves the address bar; a post from the page is the person's
// (admin), reaches the seat's terminal (seen in the page's xterm.js pane,
// drawn from the server's emulator) and the TUI; a second browser and the
// terminal see the same room; typing into the pane is off until toggled.
func TestWebPageRoomWithTerminalAndSecondBrowser(t *testing.T) {
	t.Parallel()
	b := startBrowser(t)
	phome := t.TempDir()
	script := filepath.Join(repoRoot(t), "e2e", "testdata", "promptcli.sh")
	writeConfig(t, phome, `{"accounts":[{"id":"pro","name":"Pro","kind":"cli","command":`+strconv.Quote(script)+`}]}`)
	r := startTUI(t, phome, serverEnv(t), 160, 40, nil)
	r.waitText("say something to the room", "Participants", "Pro")
	r.prefix("a")
	r.keys("j")
	r.keys("s")
	r.waitText("Pro · cli · running", "promptcli READY")
	r.waitFor("Pro in the room", func(scr string) bool { return regexp.MustCompile(`● Pro +in room`).MatchString(scr) })
	sayInTUI(r, "first said on the screen")
	r.waitText("Room · first said on the screen", "GOT<first said on the screen>")
	base, token := openWeb(t, phome, nil)

	// No token: the sign-in note, no room.
	plain := b.tab()
	cdp(t, plain, "open the page without its token", chromedp.Navigate(base+"/"))
	waitJS(t, plain, "the sign-in note", `!document.getElementById("signin").hidden`)
	if evalJS[bool](t, plain, `document.getElementById("page").hidden && document.querySelectorAll("#posts li, #topic-list li").length === 0`) != true {
		t.Error("the page without its token shows the room")
	}

	a := b.tab()
	cdp(t, a, "open the page with its token", chromedp.Navigate(base+"/#token="+token))
	waitJS(t, a, "the room", `!document.getElementById("page").hidden && document.querySelectorAll("#topic-list li").length > 0`)
	if loc := evalJS[string](t, a, `location.href`); strings.Contains(loc, token) {
		t.Errorf("the token stays in the address bar: %s", loc)
	}
	res, err := chromedp.Call(a, network.GetCookies, network.GetCookiesParams{URLs: []string{base}})
	if err != nil {
		t.Fatal(err)
	}
	cookies := res.Cookies
	if len(cookies) != 1 || !cookies[0].HTTPOnly || cookies[0].SameSite != network.CookieSameSiteStrict || cookies[0].Value == token {
		t.Errorf("the page's cookies: %+v", cookies)
	}
	if js := evalJS[string](t, a, `document.cookie`); js != "" {
		t.Errorf("the page's script reads a cookie (not HttpOnly): %q", js)
	}
	openTopicIn(t, a, "first said on the screen")
	waitJS(t, a, "Pro running", `!!document.querySelector('#people-list button.open-pane[data-account="pro"]')`)
	cdp(t, a, "open Pro's terminal", chromedp.Click(chromedp.CSS(`#people-list button.open-pane[data-account="pro"]`)))
	waitJS(t, a, "the pane drawn from the server's emulator", webPaneText+`.includes("GOT<first said on the screen>")`)

	// @ completion, then a post: the person's, typed into the seat, on the TUI.
	cdp(t, a, "@ completion", chromedp.SendKeys(chromedp.ID("text"), "@P"))
	waitJS(t, a, "the completion list", `!document.getElementById("complete").hidden && document.getElementById("complete").textContent === "@Pro"`)
	cdp(t, a, "complete and post", chromedp.SendKeys(chromedp.ID("text"), "\tsaid in the browser\r"))
	r.waitFor("the page's post in the TUI's room", func(scr string) bool {
		return strings.Contains(roomText(scr), "Master → Pro") && strings.Contains(roomText(scr), "said in the browser")
	})
	waitJS(t, a, "the post in the page, the person's", `[...document.querySelectorAll("#posts li")].some(li =>
		li.querySelector(".post-body").textContent.endsWith("said in the browser") && li.querySelector(".to").textContent.includes("Pro") &&
		li.querySelector(".speaker").textContent === "Master" && li.querySelector(".role").textContent === "admin")`)
	waitJS(t, a, "the post typed into the seat", webPaneText+`.includes("GOT<said in the browser>")`)
	waitJS(t, a, "its delivery mark", `document.querySelector("#posts li:last-child .marks").textContent.includes("Pro: received")`)

	// A second browser and the terminal see the same room.
	b2 := b.tab()
	cdp(t, b2, "a second browser", chromedp.Navigate(base+"/#token="+token))
	waitJS(t, b2, "the room in the second browser", `document.querySelectorAll("#topic-list li").length > 0`)
	// It opens the topic the terminal shows, as a new screen does.
	waitJS(t, b2, "the terminal's topic open in the second browser", `document.getElementById("topic-name").textContent === "first said on the screen"`)
	waitJS(t, b2, "the first browser's post in the second", `document.getElementById("posts").textContent.includes("said in the browser")`)
	sayInTUI(r, "answered on the screen")
	for _, ctx := range []context.Context{a, b2} {
		waitJS(t, ctx, "the TUI's post in a browser", `document.getElementById("posts").textContent.includes("answered on the screen")`)
	}

	// A prompt: listed under Needs you; the pane is read-only until
	// "type into it", then the keys are the person's and answer it.
	cdp(t, b2, "a post that makes Pro ask", chromedp.SendKeys(chromedp.ID("text"), "@Pro ask rm -rf build\r"))
	waitJS(t, a, "the prompt in the pane", webPaneText+`.includes("Allow rm -rf build? [y/n]")`)
	waitJS(t, a, "the prompt under Needs you", `[...document.querySelectorAll("#needs-list li.need.permission")].some(li => li.textContent.includes("Pro") && li.textContent.includes("Bash"))`)
	screenshot(t, a, "web-desktop.png")
	before := evalJS[string](t, a, `document.querySelector(".pane").dataset.size`)
	cdp(t, a, "focus the pane", chromedp.Click(chromedp.CSS(".pane .pane-term")))
	pressKeys(t, a, "y\r")
	cdp(t, a, "toggle typing", chromedp.Click(chromedp.CSS(".pane .pane-type")))
	pressKeys(t, a, "n\r")
	waitJS(t, a, "the answer typed from the page", webPaneText+`.includes("ANSWER<n>")`)
	if evalJS[bool](t, a, webPaneText+`.includes("ANSWER<y")`) {
		t.Error("keys reached the seat while the pane was read-only")
	}
	waitJS(t, a, "the prompt gone from Needs you", `document.querySelectorAll("#needs-list li.need.permission").length === 0`)

	// Typing made the browser the latest client: the pane took its size
	// (wider than the TUI's pane); the TUI's keys take it back.
	waitJS(t, a, "the pane at the browser's size", `parseInt(document.querySelector(".pane").dataset.size) > 100`)
	sayInTUI(r, "back on the terminal")
	waitJS(t, a, "the pane at the TUI's size again", `document.querySelector(".pane").dataset.size === `+jsString(before))
}

// pressKeys presses each key of keys as a keyboard would (one keydown
// with its text; \r is Enter) on the focused element. chromedp's SendKeys
// adds a char event of its own, which xterm.js takes as a second key.
func pressKeys(t *testing.T, ctx context.Context, keys string) {
	t.Helper()
	for _, r := range keys {
		down := input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyDown, Key: string(r), Text: string(r)}
		if r == '\r' {
			down.Key, down.Code, down.WindowsVirtualKeyCode = "Enter", "Enter", 13
		}
		up := down
		up.Type, up.Text = input.DispatchKeyEventTypeKeyUp, ""
		for _, ev := range []input.DispatchKeyEventParams{down, up} {
			if _, err := chromedp.Call(ctx, input.DispatchKeyEvent, ev); err != nil {
				t.Fatalf("key %q: %v", r, err)
			}
		}
	}
}

// webPaneText is the text of the page's first terminal pane (xterm.js draws
// spaces as no-break spaces).
const webPaneText = `document.querySelector(".pane .xterm-rows").textContent.replace(/\u00a0/g, " ")`

// openTopicIn clicks the topic named name in the page's list and waits
// for its first page.
func openTopicIn(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	sel := `[...document.querySelectorAll("#topic-list li")].find(li => li.textContent.startsWith(` + jsString(name) + `))`
	waitJS(t, ctx, "the topic "+name+" listed", "!!"+sel)
	cdp(t, ctx, "open "+name, chromedp.Evaluate[chromedp.Void](sel+".click()"))
	waitJS(t, ctx, "the topic "+name+" open", `document.getElementById("posts").textContent.includes(`+jsString(name)+`)`)
}

// TestWebHostileTextAndPhoneLayout: post bodies, the person's name and a
// topic name holding script, HTML and escape sequences render as text;
// at 390x844 the needs-you list comes first, then the room and the input,
// and topics and participants wait behind their buttons.
func TestWebHostileTextAndPhoneLayout(t *testing.T) {
	t.Parallel()
	b := startBrowser(t)
	phome := t.TempDir()
	writeConfig(t, phome, `{"accounts":[]}`)
	name := `<img src=x onerror="window.pwned='name'">`
	env := append(serverEnv(t), "PULLCEPT_NAME="+name)
	t.Cleanup(func() { endServer(t, phome, nil) })
	base, token := openWeb(t, phome, env)
	a := b.tab()
	cdp(t, a, "open the page", chromedp.Navigate(base+"/#token="+token))
	waitJS(t, a, "the room", `!document.getElementById("page").hidden && typeof window.Terminal === "function"`)
	bodies := []string{
		`<script>window.pwned='script'</script><b>bold?</b>`,
		"\x1b[31mred\x1b[0m \x1b]0;title\x07 <img src=x onerror=\"window.pwned='body'\">",
	}
	for _, body := range bodies {
		cdp(t, a, "post "+body, chromedp.SetValue(chromedp.ID("text"), body), chromedp.Click(chromedp.ID("send")))
		waitJS(t, a, "the input emptied (delivered)", `document.getElementById("text").value === ""`)
	}
	waitJS(t, a, "both posts shown", `document.querySelectorAll("#posts li").length === 2`)
	got := evalJS[[]string](t, a, `[...document.querySelectorAll("#posts .post-body")].map(e => e.textContent)`)
	waitJS(t, a, "the topic named by its first post", `document.getElementById("topic-list").textContent.includes("<script>")`)
	want := []string{bodies[0], strings.NewReplacer("\x1b", "␛", "\x07", "␇").Replace(bodies[1])}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("posts as shown:\n%q\nwant:\n%q", got, want)
	}
	if sp := evalJS[string](t, a, `document.querySelector("#posts .speaker").textContent`); sp != name {
		t.Errorf("the speaker shown as %q, want %q", sp, name)
	}
	if n := evalJS[int](t, a, `document.querySelectorAll("main img, main script, main b").length`); n != 0 {
		t.Errorf("%d elements made from posted text", n)
	}
	if p := evalJS[any](t, a, `window.pwned`); p != nil {
		t.Errorf("posted text ran as script: window.pwned = %v", p)
	}
	// An attachment from the page: uploaded, saved under the topic by the
	// app, named in the post; its hostile name is text too.
	up := filepath.Join(t.TempDir(), "<img src=x onerror=window.pwned=1>notes.txt")
	if err := os.WriteFile(up, []byte("attached from the page\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cdp(t, a, "attach a file", chromedp.SetUploadFiles(chromedp.ID("files"), []string{up}))
	waitJS(t, a, "the file listed by the input", `document.getElementById("attached").textContent.includes("<img src=x onerror=window.pwned=1>notes.txt")`)
	cdp(t, a, "post with it", chromedp.SetValue(chromedp.ID("text"), "with a file"), chromedp.Click(chromedp.ID("send")))
	waitJS(t, a, "the post naming the saved file", `[...document.querySelectorAll("#posts .post-body")].some(e => e.textContent.startsWith("with a file") && e.textContent.includes("notes"))`)
	saved, _ := filepath.Glob(filepath.Join(phome, "logs", "main", "attachments", "*", "*"))
	if len(saved) != 1 {
		t.Fatalf("attachments saved: %v", saved)
	}
	if b, _ := os.ReadFile(saved[0]); string(b) != "attached from the page\n" {
		t.Errorf("the saved attachment %s holds %q", saved[0], b)
	}
	if n := evalJS[int](t, a, `document.querySelectorAll("main img, main script, main b").length`); n != 0 {
		t.Errorf("%d elements made from an attachment's name", n)
	}
	screenshot(t, a, "web-desktop-hostile.png")

	// The phone: the needs-you list first, then the room, then the input.
	cdp(t, a, "a phone's screen", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile))
	waitJS(t, a, "the narrow layout", `getComputedStyle(document.getElementById("topics")).display === "none"`)
	tops := evalJS[[]float64](t, a, `["needs","room","input"].map(id => document.getElementById(id).getBoundingClientRect().top)`)
	if len(tops) != 3 || !(tops[0] < tops[1] && tops[1] < tops[2]) || tops[0] > 100 {
		t.Errorf("at 390x844 the needs-you list, room and input are at %v (want in that order, the list at the top)", tops)
	}
	if n := evalJS[float64](t, a, `document.documentElement.scrollWidth`); n > 390 {
		t.Errorf("the page is %v px wide at 390", n)
	}
	cdp(t, a, "topics on demand", chromedp.Click(chromedp.ID("show-topics")))
	waitJS(t, a, "the topics shown", `getComputedStyle(document.getElementById("topics")).display !== "none"`)
	screenshot(t, a, "web-phone.png")
}

// TestWebListenerRefuses: a wrong Host, a forged Origin and a missing
// cookie are refused on requests and WebSocket upgrades; a wrong token gets
// no cookie; --revoke signs every browser out; a listen address without
// TLS is refused; inside a seat pullcept web is refused; the token is in
// no log of the home.
func TestWebListenerRefuses(t *testing.T) {
	t.Parallel()
	phome := t.TempDir()
	writeConfig(t, phome, `{"accounts":[]}`)
	t.Cleanup(func() { endServer(t, phome, nil) })

	inSeat := pullceptCmd(t, phome, []string{"PULLCEPT_SEAT=inside in x", "PULLCEPT_SEAT_HOME=" + filepath.Join(phome, "run")}, "web")
	if inSeat.code == 0 || !strings.Contains(inSeat.err, "inside the seat") {
		t.Errorf("pullcept web inside a seat: exit %d\n%s%s", inSeat.code, inSeat.out, inSeat.err)
	}
	plain := pullceptCmd(t, phome, nil, "web", "--listen", "127.0.0.1:0")
	if plain.code == 0 || !strings.Contains(plain.err, "needs TLS") {
		t.Errorf("a listen address without TLS: exit %d\n%s%s", plain.code, plain.out, plain.err)
	}
	base, token := openWeb(t, phome, nil)
	again := pullceptOK(t, phome, "web")
	if strings.Contains(again, token) || !strings.Contains(again, base) {
		t.Errorf("pullcept web again printed:\n%s", again)
	}
	if res := pullceptCmd(t, phome, nil, "web", "--listen", "127.0.0.1:0", "--tls-cert", "c", "--tls-key", "k"); res.code == 0 || !strings.Contains(res.err, "--revoke first") {
		t.Errorf("another address while the page is open: exit %d\n%s%s", res.code, res.out, res.err)
	}
	u, _ := url.Parse(base)
	origin := base
	wsURL := "ws://" + u.Host + "/ws"

	status := func(method, path, host, origin, body string, jar http.CookieJar) int {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		if host != "" {
			req.Host = host
		}
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		c := &http.Client{Jar: jar}
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	dial := func(host, origin string, jar http.CookieJar) (*websocket.Conn, int) {
		t.Helper()
		h := http.Header{}
		if origin != "" {
			h.Set("Origin", origin)
		}
		if host != "" {
			h.Set("Host", host)
		}
		d := websocket.Dialer{Jar: jar, HandshakeTimeout: 10 * time.Second}
		c, res, err := d.Dial(wsURL, h)
		if err != nil {
			if res == nil {
				t.Fatalf("dial %s: %v", wsURL, err)
			}
			return nil, res.StatusCode
		}
		return c, 101
	}

	jar, _ := cookiejar.New(nil)
	if got := status("GET", "/", "", "", "", nil); got != 200 {
		t.Errorf("the page's shell: %d", got)
	}
	if got := status("GET", "/", "evil.example:80", "", "", nil); got != http.StatusMisdirectedRequest {
		t.Errorf("a wrong Host: %d", got)
	}
	if got := status("POST", "/login", "", "http://evil.example", `{"token":"`+token+`"}`, jar); got != http.StatusForbidden {
		t.Errorf("a login from a forged Origin: %d", got)
	}
	if got := status("POST", "/login", "", origin, `{"token":"`+strings.Repeat("0", 64)+`"}`, jar); got != http.StatusUnauthorized {
		t.Errorf("a wrong token: %d", got)
	}
	if _, got := dial("", origin, jar); got != http.StatusUnauthorized {
		t.Errorf("a WebSocket without the cookie: %d", got)
	}
	if got := status("POST", "/login", "", origin, `{"token":"`+token+`"}`, jar); got != http.StatusNoContent {
		t.Fatalf("the token's login: %d", got)
	}
	if _, got := dial("", "http://evil.example", jar); got != http.StatusForbidden {
		t.Errorf("a WebSocket from a forged Origin: %d", got)
	}
	if _, got := dial("", "", jar); got != http.StatusForbidden {
		t.Errorf("a WebSocket without Origin: %d", got)
	}
	if _, got := dial("evil.example", origin, jar); got != http.StatusMisdirectedRequest {
		t.Errorf("a WebSocket to a wrong Host: %d", got)
	}
	c, got := dial("", origin, jar)
	if got != 101 {
		t.Fatalf("the signed-in WebSocket: %d", got)
	}
	_ = c.SetReadDeadline(time.Now().Add(20 * time.Second))
	_, ready, err := c.ReadMessage()
	if err != nil || !strings.Contains(string(ready), `"event":"ready"`) || strings.Contains(string(ready), "token") {
		t.Errorf("the first line: %s %v", ready, err)
	}
	if ls := serverLs(t, phome); !strings.Contains(ls.raw, "web page: "+base+"  browsers: 1") {
		t.Errorf("pullcept ls with a browser open:\n%s", ls.raw)
	}

	pullceptOK(t, phome, "web", "--revoke")
	for {
		if _, _, err := c.ReadMessage(); err != nil {
			break // closed by the revocation
		}
	}
	c.Close()
	if res := pullceptCmd(t, phome, nil, "web", "--revoke"); !strings.Contains(res.out+res.err, "no page") {
		t.Errorf("a second --revoke: %s%s", res.out, res.err)
	}
	base2, token2 := openWeb(t, phome, nil)
	if token2 == token {
		t.Error("a new page kept the revoked token")
	}
	jar2, _ := cookiejar.New(nil)
	req, _ := http.NewRequest("POST", base2+"/login", strings.NewReader(`{"token":"`+token+`"}`))
	req.Header.Set("Origin", base2)
	if res, err := (&http.Client{Jar: jar2}).Do(req); err != nil || res.StatusCode != http.StatusUnauthorized {
		t.Errorf("the revoked token: %v %v", res, err)
	}

	// The token is in no file of the home but what was printed.
	filepath.Walk(phome, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() || info.Size() > 10<<20 {
			return nil
		}
		b, _ := os.ReadFile(p)
		for _, tok := range []string{token, token2} {
			if strings.Contains(string(b), tok) {
				t.Errorf("the token is in %s", p)
			}
		}
		return nil
	})
	if pid := serverPID(phome); pid > 0 {
		for _, f := range []string{"cmdline", "environ"} {
			b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/%s", pid, f))
			if strings.Contains(string(b), token2) {
				t.Errorf("the token is in the server's %s", f)
			}
		}
	}
}

// TestWebAnswersRealClaudePrompt: a real Claude's permission prompt (its
// PermissionRequest hook, tool and command from the payload) is in the
// page's Needs you with its answers as buttons; "no" keeps the command
// from running, "yes" runs it once; each answer leaves the list and is in
// the topic's record of answers as given from the screen "browser 1".
func TestWebAnswersRealClaudePrompt(t *testing.T) {
	t.Parallel()
	c := newCLIRoom(t, permAgent("Bash", func(cmd string) map[string]any {
		return map[string]any{"command": cmd, "description": "Run the check"}
	}))
	b := startBrowser(t)
	topic := c.topic()
	c.startSeat(t, topic, "claude", claudeName)
	base, token := openWeb(t, c.phome, nil)
	a := b.tab()
	cdp(t, a, "open the page", chromedp.Navigate(base+"/#token="+token))
	waitJS(t, a, "the room", `!document.getElementById("page").hidden`)
	ran := filepath.Join(c.cwd, "ran")
	for _, tc := range []struct {
		answer string
		runs   int
	}{{"no", 0}, {"yes", 1}} {
		from := c.mark()
		c.post(t, topic, "@"+claudeName+" run echo "+tc.answer+" >> "+ran, c.lastPostID(topic))
		c.waitActivity(t, from, topic, "claude", func(a map[string]any) bool {
			return a["state"] == "waiting" && a["wait"] == "permission"
		})
		item := `[...document.querySelectorAll("#needs-list li.need.permission")].find(li => li.textContent.includes(` +
			jsString(claudeName) + `) && li.textContent.includes(` + jsString("echo "+tc.answer) + `))`
		waitJS(t, a, "the prompt under Needs you with its "+tc.answer+" button", "!!"+item+` && !!`+item+`.querySelector("button.answer.`+tc.answer+`")`)
		if tc.answer == "no" {
			screenshot(t, a, "web-desktop-claude-prompt.png")
			cdp(t, a, "answer no", chromedp.Evaluate[chromedp.Void](item+`.querySelector("button.answer.no").click()`))
		} else {
			// On a phone the list comes first and an answer is one tap.
			cdp(t, a, "a phone's screen", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile))
			waitJS(t, a, "the list at the top", `document.getElementById("needs").getBoundingClientRect().top < 100`)
			screenshot(t, a, "web-phone-claude-prompt.png")
			cdp(t, a, "tap yes", chromedp.Click(chromedp.CSS(`#needs-list li.need.permission button.answer.yes`)))
		}
		waitJS(t, a, "the prompt gone from Needs you", "!"+item)
		c.waitActivity(t, from, topic, "claude", func(a map[string]any) bool { return a["state"] == "ready" && a["signal"] == "Stop" })
		got, _ := os.ReadFile(ran)
		if n := strings.Count(string(got), "yes\n"); n != tc.runs || strings.Contains(string(got), "no\n") {
			t.Fatalf("after %q the file says %q", tc.answer, got)
		}
	}
	// The page shows the topic's answered items on request.
	openTopicIn(t, a, "run echo no")
	cdp(t, a, "the answered items", chromedp.Click(chromedp.ID("show-answered")))
	waitJS(t, a, "both answers listed", `document.querySelectorAll("#answered-list li.answered").length === 2 &&
		document.getElementById("answered-list").textContent.includes("Bash: echo yes") && document.getElementById("answered-list").textContent.includes("from browser 1")`)
	screenshot(t, a, "web-phone-answered.png")
	rec := c.do(map[string]any{"cmd": "needs", "topic": topic, "answered": true})
	list, _ := rec["answers"].([]any)
	var seen []string
	for _, r := range list {
		m, _ := r.(map[string]any)
		seen = append(seen, fmt.Sprintf("%v/%v/%v/%v", m["screen"], m["answer"], m["tool"], m["done"]))
	}
	if strings.Join(seen, " ") != "browser 1/no/Bash/true browser 1/yes/Bash/true" {
		t.Errorf("the topic's record of answers: %v\n%v", seen, rec)
	}

	// The pane answers first while the page still shows the prompt: the
	// page's answer (its button's own handler, kept from before the item
	// left the list, as a tap that crossed the pane's answer) types
	// nothing, the page says so, and the command runs once.
	paneRan := filepath.Join(c.cwd, "ran-pane")
	from := c.mark()
	c.post(t, topic, "@"+claudeName+" run echo pane >> "+paneRan, c.lastPostID(topic))
	late := `[...document.querySelectorAll("#needs-list li.need.permission")].find(li => li.textContent.includes(` + jsString("echo pane") + `))`
	waitJS(t, a, "the pane's prompt under Needs you", "!!"+late+` && !!`+late+`.querySelector("button.answer.no")`)
	cdp(t, a, "keep the no button's handler", chromedp.Evaluate[chromedp.Void](`window.lateNo = `+late+`.querySelector("button.answer.no").onclick`))
	c.waitScreen(t, topic, "claude", "Do you want to proceed?")
	time.Sleep(200 * time.Millisecond) // Claude 2.1.332 drops a dialog's keys for 150 ms after painting it (hold_test.go)
	c.do(map[string]any{"cmd": "keys", "topic": topic, "account": "claude", "keys": "\r"})
	waitJS(t, a, "the prompt answered in the pane gone from Needs you", "!"+late)
	c.waitActivity(t, from, topic, "claude", func(a map[string]any) bool { return a["state"] == "ready" && a["signal"] == "Stop" })
	cdp(t, a, "the late no from the page", chromedp.Evaluate[chromedp.Void](`window.lateNo()`))
	waitJS(t, a, "the page says nothing was sent", `document.getElementById("send-note").textContent.includes("nothing was sent")`)
	if got, _ := os.ReadFile(paneRan); strings.Count(string(got), "pane\n") != 1 {
		t.Fatalf("the command answered in the pane: the file says %q, want it once", got)
	}
	if scr := fmt.Sprint(c.do(map[string]any{"cmd": "screen", "topic": topic, "account": "claude"})["result"]); strings.Contains(scr, "Do you want to proceed?") {
		t.Fatalf("a prompt again after the late answer:\n%s", scr)
	}
	rec = c.do(map[string]any{"cmd": "needs", "topic": topic, "answered": true})
	list, _ = rec["answers"].([]any)
	if len(list) != 3 {
		t.Fatalf("the topic's record after the late answer: %v", rec)
	}
	if m, _ := list[2].(map[string]any); m["screen"] != "browser 1" || m["done"] != false {
		t.Errorf("the late answer's record: %v", m)
	}
}

// TestPushURL: with config.json's "push_url" (off by default) a new
// needs-you item is POSTed there as one line — kind, seat, topic — and no
// command text leaves the machine; once, not again for its changes.
func TestPushURL(t *testing.T) {
	t.Parallel()
	got := make(chan string, 16)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- r.Method + " " + string(b)
	}))
	t.Cleanup(hook.Close)
	phome := t.TempDir()
	script := filepath.Join(repoRoot(t), "e2e", "testdata", "promptcli.sh")
	writeConfig(t, phome, `{"push_url":`+strconv.Quote(hook.URL+"/pullcept-topic")+`,"accounts":[{"id":"pro","name":"Pro","kind":"cli","command":`+strconv.Quote(script)+`}]}`)
	s := startServe(t, phome)
	topic := s.topic()
	if r := s.do(map[string]any{"cmd": "start", "topic": topic, "account": "pro"}); r["event"] != "start" {
		t.Fatalf("start: %v", r)
	}
	s.wait(func(m map[string]any) bool { return m["event"] == "roster" && hasParticipant(m, "Pro") })
	if r := s.do(map[string]any{"cmd": "post", "topic": topic, "content": "@Pro ask rm -rf build"}); r["delivered"] != true {
		t.Fatalf("post: %v", r)
	}
	var line string
	for line == "" || !strings.Contains(line, "permission") {
		select {
		case line = <-got:
		case <-time.After(60 * time.Second):
			t.Fatalf("no push for the permission prompt (last: %q)", line)
		}
	}
	if want := "POST pullcept needs you: permission · Pro · topic …" + topic[len(topic)-8:]; line != want {
		t.Errorf("the push: %q, want %q", line, want)
	}
	select {
	case more := <-got:
		if strings.Contains(more, "permission") {
			t.Errorf("the prompt was pushed twice: %q", more)
		}
	default:
	}
}

// TestWebListenWithTLS: --listen with a certificate serves the page over
// HTTPS at that address, and its cookie is Secure.
func TestWebListenWithTLS(t *testing.T) {
	t.Parallel()
	phome := t.TempDir()
	writeConfig(t, phome, `{"accounts":[]}`)
	t.Cleanup(func() { endServer(t, phome, nil) })
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(key)
	_ = os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	_ = os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)

	res := pullceptCmd(t, phome, nil, "web", "--listen", "127.0.0.1:0", "--tls-cert", certFile, "--tls-key", keyFile)
	m := regexp.MustCompile(`(?m)^(https://127\.0\.0\.1:\d+)/#token=([0-9a-f]{64})$`).FindStringSubmatch(res.out)
	if res.code != 0 || m == nil {
		t.Fatalf("pullcept web --listen with TLS: exit %d\n%s%s", res.code, res.out, res.err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(&x509.Certificate{Raw: der})
	c, _ := x509.ParseCertificate(der)
	pool.AddCert(c)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	req, _ := http.NewRequest("POST", m[1]+"/login", strings.NewReader(`{"token":"`+m[2]+`"}`))
	req.Header.Set("Origin", m[1])
	r, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusNoContent || len(r.Cookies()) != 1 || !r.Cookies()[0].Secure || !r.Cookies()[0].HttpOnly {
		t.Errorf("login over TLS: %d %+v", r.StatusCode, r.Cookies())
	}
}
