// Command cmd runs the Pullcept screen on the real terminal with a real
// room engine and topic store under -dir and no seats, for the tmux test
// and for trying the screen by hand.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"pullcept/room"
	"pullcept/topicstore"
	"pullcept/tui"
)

func main() {
	dir := flag.String("dir", "", "topic store directory")
	prefix := flag.String("prefix", "", "prefix key (default ctrl+b)")
	flag.Parse()
	if err := run(*dir, *prefix); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(dir, prefix string) error {
	if dir == "" {
		d, err := os.MkdirTemp("", "pullcept-tui-*")
		if err != nil {
			return err
		}
		dir = d
	}
	st, err := topicstore.Open(dir)
	if err != nil {
		return err
	}
	eng := room.New(room.Config{Log: st, PersonName: "you"})
	return tui.Run(context.Background(), tui.Options{Engine: eng, Store: st, Prefix: prefix})
}
