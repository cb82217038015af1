package app

// Names and renames (spec 003 ニックネームと元の名前, #383/#391). The room
// calls an account by its calling name (the nickname, else the name) and
// its posts carry the name as full_name. A rename — from the screen, from
// `pullcept accounts nickname`, from control mode, or a hand edit of
// config.json, which the app watches — reaches every running seat of the
// account: the rosters of all topics, the identity frame to its sidecar and
// the receiver fields of the tags typed into it. Posts already said keep
// the names they were said under.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"pullcept/seat"
)

// accountNames is the saved names of account, for the room and the typist.
func (a *App) accountNames(account string) (name, fullName string, ok bool) {
	if a.seats == nil {
		return "", "", false
	}
	return a.seats.Names(account)
}

// setAccounts replaces the accounts and renames the running seats of each
// account whose calling name or name changed. It returns what it did, for
// the status line.
func (a *App) setAccounts(accounts []seat.Account) []string {
	before := map[string][2]string{}
	for _, acc := range a.seats.Accounts() {
		before[acc.ID] = [2]string{acc.CallName(), acc.Name}
	}
	a.seats.SetAccounts(accounts)
	var msgs []string
	for _, acc := range accounts {
		was, ok := before[acc.ID]
		if !ok || was == [2]string{acc.CallName(), acc.Name} {
			continue
		}
		ids, err := a.engine.Rename(acc.ID)
		if err != nil {
			msgs = append(msgs, fmt.Sprintf("%s keeps the name %s in the rooms: %v", acc.ID, was[0], err))
			continue
		}
		a.sock.TellIdentity(ids...)
		if len(ids) > 0 {
			msgs = append(msgs, fmt.Sprintf("%s is now called %s (%d seat(s) renamed)", was[0], acc.CallName(), len(ids)))
		}
	}
	return msgs
}

// ErrNoAccount is SetNickname's answer for an id config.json does not have.
var ErrNoAccount = errors.New("no such account")

// SetNickname saves account's nickname in config.json ("" clears it: the
// room then calls it by its name) and applies it to the running seats. It
// returns the calling name now saved. A nickname that is the person's name
// is refused before anything is written.
func (a *App) SetNickname(account, nickname string) (string, error) {
	nickname = strings.TrimSpace(nickname)
	acc, ok := a.account(account)
	if !ok {
		return "", fmt.Errorf("%w: %q (pullcept accounts list shows the ids)", ErrNoAccount, account)
	}
	acc.Nickname = nickname
	if err := CheckCallName(acc.CallName(), a.engine.PersonName()); err != nil {
		return "", err
	}
	if err := seat.SetNickname(a.dirs.ConfigFile(), account, nickname); err != nil {
		return "", err
	}
	if n := a.ReloadAccounts(); n != "" {
		a.log.Info("nickname saved", "account", account, "reload", n) // the caller says what it did
	}
	if now, ok := a.account(account); ok {
		return now.CallName(), nil
	}
	return acc.CallName(), nil
}

// CheckCallName refuses a calling name the room would refuse: the
// person's (room.ErrPersonsName), compared as the room does.
func CheckCallName(name, person string) error {
	if strings.EqualFold(strings.TrimSpace(name), strings.TrimSpace(person)) {
		return fmt.Errorf("%q is the person's name in the rooms (PULLCEPT_NAME, else $USER); choose another", name)
	}
	return nil
}

func (a *App) account(id string) (seat.Account, bool) {
	for _, acc := range a.seats.Accounts() {
		if acc.ID == id {
			return acc, true
		}
	}
	return seat.Account{}, false
}

// watchConfig reloads config.json whenever it changes on disk (an editor's
// save, `pullcept accounts` from another shell), until ctx ends.
func (a *App) watchConfig(ctx context.Context) {
	a.watchFile(ctx, a.dirs.ConfigFile(), "config.json", func() {
		if n, changed := a.reloadAccounts(); changed {
			a.bus.publish(Event{Kind: EventNotice, Notice: strings.TrimSuffix("config.json changed: the accounts were reloaded; "+n, "; ")})
		}
	})
}
