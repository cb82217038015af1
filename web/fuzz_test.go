package web

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"pullcept/app"
	"pullcept/dirs"
	"pullcept/seat"
)

// FuzzRequest: any request a browser or another local process can send
// (method, path, Host, Origin, cookie, body) is answered without a panic;
// without the cookie the page gave, /ws, /term and /upload are refused, and
// /login sets no cookie unless the printed token was offered.
func FuzzRequest(f *testing.F) {
	home := f.TempDir()
	d, err := dirs.Resolve(func(k string) string { return map[string]string{"PULLCEPT_HOME": home}[k] })
	if err != nil {
		f.Fatal(err)
	}
	a, err := app.Start(context.Background(), app.Options{Dirs: d, PersonName: "you", Accounts: []seat.Account{}})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(a.Close)
	s, link, err := Start(Options{App: a})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(s.Close)
	u, _ := url.Parse(s.Address())
	host := u.Host
	f.Add("POST", "/login", host, s.Address(), "", []byte(`{"token":"00"}`))
	f.Add("GET", "/ws", host, s.Address(), "forged", []byte(nil))
	f.Add("POST", "/upload?topic=x&name=../../etc/passwd", host, s.Address(), "", []byte("data"))
	f.Add("GET", "/term?topic=x&account=y", "evil.example", "http://evil.example", "", []byte(nil))
	f.Add("GET", "/", host, "", "", []byte(nil))
	f.Add("GET", "/../../go.mod", host, "", "", []byte(nil))
	f.Fuzz(func(t *testing.T, method, path, reqHost, origin, cookie string, body []byte) {
		r, err := http.NewRequest(method, "http://x"+path, bytes.NewReader(body))
		if err != nil {
			return
		}
		r.Host = reqHost
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		if cookie != "" {
			r.AddCookie(&http.Cookie{Name: CookieName, Value: url.QueryEscape(cookie)})
		}
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		switch r.URL.Path {
		case "/ws", "/term", "/upload":
			if w.Code < 400 {
				t.Fatalf("%s %s without the page's cookie: %d", method, path, w.Code)
			}
		case "/login":
			if len(w.Result().Cookies()) > 0 && !bytes.Contains(body, []byte(link[len(link)-64:])) {
				t.Fatalf("a cookie for a login without the token: %q", body)
			}
		}
	})
}
