package cli

// The commands that run the engine: `pullcept server`, `pullcept serve`
// and `pullcept accounts`.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"

	"pullcept/app"
	"pullcept/attach"
	"pullcept/dirs"
	"pullcept/seat"
)

// engine runs the commands that run the engine.
func engine(ctx context.Context, cmd string, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	switch cmd {
	case "serve":
		return serve(ctx, stdin, stdout, stderr)
	case "server":
		return runServer(ctx, stderr)
	case "accounts":
		args = append([]string{cmd}, args...)
		return StoreClient(ctx, args, stdout, writes(args), accountsHere)
	}
	return fmt.Errorf("unknown command %q", cmd)
}

// accountsHere is `pullcept accounts` with no server running, under the
// home's lock.
func accountsHere(d dirs.Dirs, args []string, stdout io.Writer) error {
	if nick, ok := nicknameArgs(args); ok {
		cfg, _ := seat.Load(d.ConfigFile())
		if acc, found := cfg.Account(nick[0]); found {
			acc.Nickname = nick[1]
			if err := app.CheckCallName(acc.CallName(), PersonName()); err != nil {
				return fmt.Errorf("accounts nickname: %w", err)
			}
		}
	}
	return accountsCommand(args[1:], d.ConfigFile(), stdout, exec.LookPath)
}

// serve is `pullcept serve`: a control client of the running server, or
// the engine in the foreground when none runs (never two engines).
func serve(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) error {
	d, err := dirs.Resolve(os.Getenv)
	if err != nil {
		return err
	}
	if err := RefuseFromSeat(d, "serving as the person"); err != nil {
		return err
	}
	if err := d.Ensure(); err != nil {
		return err
	}
	c, uc, ok, err := DialServer(d, attach.Hello{Mode: attach.ModeControl, UpdateEnv: attach.PersonEnv(os.Environ())}, false)
	if err != nil {
		return err
	}
	if !ok {
		return serveForeground(ctx, d, stdin, stdout, stderr)
	}
	defer uc.Close()
	return Relay(ctx, c, uc, stdin, stdout, os.Stderr)
}

// writes says whether a store command changes something.
func writes(args []string) bool {
	if len(args) < 2 || args[0] != "accounts" {
		return false
	}
	switch args[1] {
	case "add", "remove", "rm", "nickname", "nick":
		return true
	}
	return false
}

// nicknameArgs is `accounts nickname ID [NICK]`'s id and nickname.
func nicknameArgs(args []string) ([2]string, bool) {
	if len(args) < 3 || len(args) > 4 || args[0] != "accounts" || (args[1] != "nickname" && args[1] != "nick") {
		return [2]string{}, false
	}
	nick := ""
	if len(args) == 4 {
		nick = args[3]
	}
	return [2]string{args[2], nick}, true
}

// storeCommand runs a store command inside the server; ctx carries the
// environment of the terminal that ran it (seat.WithEnv).
func storeCommand(ctx context.Context, a *app.App, args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return errors.New("no command")
	}
	switch args[0] {
	case "accounts":
		if nick, ok := nicknameArgs(args); ok {
			// The running app saves it and renames the running seats.
			name, err := a.SetNickname(nick[0], nick[1])
			if err != nil {
				return fmt.Errorf("accounts nickname: %w", err)
			}
			fmt.Fprintf(stdout, "The room now calls %s %q (%s).\n", nick[0], name, a.Dirs().ConfigFile())
			return nil
		}
		// The command is found as the person's shell would find it, not on
		// the server's PATH (the first terminal's).
		if err := accountsCommand(args[1:], a.Dirs().ConfigFile(), stdout, seat.LookPathFor(ctx)); err != nil {
			return err
		}
		if writes(args) {
			if n := a.ReloadAccounts(); n != "" {
				fmt.Fprintln(stdout, "the running server reloaded config.json:", n)
			}
		}
		return nil
	case "topics":
		return Topics(a.Store(), args[1:], stdout)
	}
	return fmt.Errorf("unknown command %q", args[0])
}
