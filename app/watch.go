package app

import (
	"context"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

// configSettle is how long a watcher waits for an editor's burst of writes
// and renames to end before it reads the file.
const configSettle = 150 * time.Millisecond

// watchFile calls changed, from one goroutine, once each burst of changes
// to path on disk has settled, until ctx ends. It watches the folder:
// editors replace a file by renaming a new one over it. what names the file
// in the warning when it cannot be watched.
func (a *App) watchFile(ctx context.Context, path, what string, changed func()) {
	w, err := fsnotify.NewWatcher()
	if err == nil {
		err = w.Add(filepath.Dir(path))
	}
	if err != nil {
		if w != nil {
			w.Close()
		}
		a.log.Warn(what+" is not watched: edits apply at the next start", "err", err)
		return
	}
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		defer w.Close()
		var settle <-chan time.Time
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				if filepath.Clean(ev.Name) == filepath.Clean(path) && ev.Op&^fsnotify.Chmod != 0 {
					settle = time.After(configSettle)
				}
			case err, ok := <-w.Errors:
				if !ok {
					return
				}
				a.log.Warn("watching "+what, "err", err)
			case <-settle:
				settle = nil
				changed()
			}
		}
	}()
}
