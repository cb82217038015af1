package web

import (
	"embed"
	"net/http"
	"path"
)

// dist is the page, built by web/build.sh from web/src (README "The page's
// assets"): nothing is fetched at run time.
//
//go:embed dist
var dist embed.FS

var assetTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
}

// serveAsset answers the page's files; any other path is not found.
func serveAsset(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "GET only", http.StatusMethodNotAllowed)
		return
	}
	name := r.URL.Path
	if name == "/" {
		name = "/index.html"
	}
	typ, ok := assetTypes[path.Ext(name)]
	b, err := dist.ReadFile("dist" + path.Clean(name))
	if !ok || err != nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", typ)
	_, _ = w.Write(b)
}
