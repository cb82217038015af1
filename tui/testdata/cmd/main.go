// Command cmd runs the Pullcept screen on the real terminal with a real run
// of the app (its home under -dir, no accounts, so no seats), for the tmux
// test and for trying the screen by hand.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"pullcept/app"
	"pullcept/dirs"
	"pullcept/seat"
	"pullcept/tui"
)

func main() {
	dir := flag.String("dir", "", "the run's home (PULLCEPT_HOME)")
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
	d, err := dirs.Resolve(func(k string) string { return map[string]string{"PULLCEPT_HOME": dir}[k] })
	if err != nil {
		return err
	}
	a, err := app.Start(context.Background(), app.Options{Dirs: d, PersonName: "you", Accounts: []seat.Account{}})
	if err != nil {
		return err
	}
	defer a.Close()
	return tui.Run(context.Background(), tui.Options{App: a, Prefix: prefix})
}
