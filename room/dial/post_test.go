package dial

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func postServer(t *testing.T, h http.HandlerFunc) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

func post(t *testing.T, url string, header [][2]string, body string) *Response {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := Post(ctx, url, header, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// What the server receives: method, the escaped path as written, the
// header fields, the body, and Connection: close.
func TestPostOK(t *testing.T) {
	t.Parallel()
	type seen struct {
		method, path, auth, ctype, body string
		length                          int64
		close                           bool
	}
	got := make(chan seen, 1)
	url := postServer(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- seen{r.Method, r.URL.EscapedPath() + "?" + r.URL.RawQuery, r.Header.Get("Authorization"), r.Header.Get("Content-Type"), string(b), r.ContentLength, r.Close}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, "{}")
	})
	resp := post(t, url+"/hooks/status/a%2Fb/acc?x=1", [][2]string{{"Content-Type", "application/json"}, {"Authorization", "Bearer s1"}}, `{"model":{}}`)
	if resp.StatusCode != 200 || resp.Status != "200 OK" || string(resp.Body) != "{}" {
		t.Fatalf("response %d %q %q", resp.StatusCode, resp.Status, resp.Body)
	}
	want := seen{"POST", "/hooks/status/a%2Fb/acc?x=1", "Bearer s1", "application/json", `{"model":{}}`, 12, true}
	if s := <-got; s != want {
		t.Fatalf("the server saw %+v\nwant %+v", s, want)
	}
}

// A refusal is a Response with its status and text, not an error.
func TestPostRefusedWithText(t *testing.T) {
	t.Parallel()
	url := postServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "hook refused: not this seat's secret", http.StatusUnauthorized)
	})
	resp := post(t, url+"/hooks/status/t/a", nil, "{}")
	if resp.StatusCode != 401 || resp.Status != "401 Unauthorized" || string(resp.Body) != "hook refused: not this seat's secret\n" {
		t.Fatalf("response %d %q %q", resp.StatusCode, resp.Status, resp.Body)
	}
}

// A chunked body is reassembled; any body is cut at MaxResponseBody.
func TestPostChunkedAndBounded(t *testing.T) {
	t.Parallel()
	url := postServer(t, func(w http.ResponseWriter, r *http.Request) {
		n := 3
		if r.URL.Path == "/long" {
			n = MaxResponseBody // 4 bytes a chunk: 4 × the bound
		}
		for i := range n {
			io.WriteString(w, []string{"one ", "two ", "thr "}[i%3])
			w.(http.Flusher).Flush() // each write its own chunk
		}
	})
	resp := post(t, url+"/short", nil, "")
	if string(resp.Body) != "one two thr " {
		t.Fatalf("chunked body %q", resp.Body)
	}
	resp = post(t, url+"/long", nil, "")
	if len(resp.Body) != MaxResponseBody || !strings.HasPrefix(string(resp.Body), "one two thr one ") {
		t.Fatalf("a long chunked body: %d bytes, %.20q", len(resp.Body), resp.Body)
	}
}

// The ctx's deadline bounds a call the server never answers.
func TestPostTimeout(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	url := postServer(t, func(w http.ResponseWriter, r *http.Request) { <-release })
	t.Cleanup(func() { close(release) }) // runs before the server's Close, which waits for the handler
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	resp, err := Post(ctx, url+"/hooks/status/t/a", nil, []byte("{}"))
	if resp != nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("resp %v, err %v; want the deadline", resp, err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("a 100ms deadline took %v", took)
	}
}

// rawHTTP serves one connection: it reads the request's header and writes
// answer as it is.
func rawHTTP(t *testing.T, answer string) string {
	t.Helper()
	return "http://" + rawConn(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		for {
			line, err := br.ReadString('\n')
			if err != nil || line == "\r\n" {
				break
			}
		}
		io.WriteString(c, answer)
	})
}

// The body framings net/http's server does not choose by itself, and the
// answers that are not HTTP.
func TestPostRawAnswers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, answer string
		status, body string // the Response's
		err          string // or the error's text
	}{
		{"until close", "HTTP/1.1 200 OK\r\n\r\n{} and more", "200 OK", "{} and more", ""},
		{"content length", "HTTP/1.1 403 Forbidden\r\nContent-Length: 5\r\n\r\nno!!!ignored", "403 Forbidden", "no!!!", ""},
		{"a 100 Continue first", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}", "200 OK", "{}", ""},
		{"LF line ends", "HTTP/1.0 200 OK\nContent-Length: 2\n\n{}", "200 OK", "{}", ""},
		{"chunk extension", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2;x=y\r\n{}\r\n0\r\n\r\n", "200 OK", "{}", ""},
		{"no reason phrase", "HTTP/1.1 204\r\n\r\n", "204", "", ""},
		{"body shorter than its length", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n{}", "", "", "ended after 2 of its 10 bytes"},
		{"bad chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "", "", "bad chunk size"},
		{"gzip framing", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", "", "", "unsupported Transfer-Encoding"},
		{"not HTTP", "hello\r\n\r\n", "", "", "not an HTTP/1.x status line"},
		{"nothing", "", "", "", "unexpected EOF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			url := rawHTTP(t, tc.answer)
			resp, err := Post(context.Background(), url+"/x", nil, nil)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), url) {
					t.Fatalf("resp %+v, err %v; want an error naming the address with %q", resp, err, tc.err)
				}
				return
			}
			if err != nil || resp.Status != tc.status || !bytes.Equal(resp.Body, []byte(tc.body)) && tc.body != "" || tc.body == "" && len(resp.Body) != 0 {
				t.Fatalf("resp %+v, err %v; want %q %q", resp, err, tc.status, tc.body)
			}
		})
	}
}

func TestPostRefusesOtherAddresses(t *testing.T) {
	t.Parallel()
	for _, u := range []string{"https://127.0.0.1:1/hooks", "ws://127.0.0.1:1/hooks", "http:///hooks"} {
		if _, err := Post(context.Background(), u, nil, nil); err == nil {
			t.Errorf("%s: posted", u)
		}
	}
	url := rawHTTP(t, "HTTP/1.1 200 OK\r\n\r\n")
	if _, err := Post(context.Background(), url, [][2]string{{"Authorization", "Bearer x\r\nX-Forged: 1"}}, nil); err == nil || !strings.Contains(err.Error(), "line break") {
		t.Fatalf("a header value with CRLF: %v", err)
	}
	if _, err := Post(context.Background(), url, [][2]string{{"Bad Name", "x"}}, nil); err == nil || !strings.Contains(err.Error(), "not a token") {
		t.Fatalf("a header name with a space: %v", err)
	}
}
