package app

// The local MCP servers of mcp-servers.json (spec 003 "ローカル MCP サーバ",
// "webhook の通知"): the app is the MCP client of each (pullcept/mcpserv),
// started with the run; a channel push becomes one post in every room
// where an AI session is seated, through the engine's one deliver() as the
// server's mcp account (Engine.Notify: role mcp, no floor, no mentions, no
// to). Each entry's account (mcp-<name>, in config.json) is made when the
// file is read and lacks it; its name and colour are read when a notice
// arrives, so a rename applies from the next notice.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"pullcept/mcpserv"
	"pullcept/seat"
)

// EventMCP: a local MCP server's state, log or the file changed; re-read
// MCPServers (and MCPLog when shown).
const EventMCP EventKind = "mcp"

// MCPOptions configure the local MCP servers of a run.
type MCPOptions struct {
	// Off runs none (and reads no file).
	Off bool
	// BridgeDirs are where the bundled bridge is looked for when there is
	// no mcp-servers.json; nil means beside the binary and its
	// ../share/pullcept.
	BridgeDirs []string
	// SignatureWait, StopGrace: 0 means mcpserv's defaults.
	SignatureWait, StopGrace time.Duration
}

// MCPServer is one local MCP server as the front ends list it.
type MCPServer struct {
	// Name is the entry's name in mcp-servers.json; Account its account
	// (mcp-<Name>), CallName what the room calls it.
	Name, Account, CallName string
	Hue                     *float64
	// State: not started, starting, running, ended, failed, stopped.
	State string
	// Reason is how it ended or failed.
	Reason string
	// InFile: the file has the entry (else R only stops it); Differs: it
	// runs from an entry the file no longer says (R applies the file).
	InFile, Differs bool
	Command         string
	Args            []string
	// EnvKeys are the variables' names; their values are never shown.
	EnvKeys []string
}

// MCPLogLine is one line of a server's log.
type MCPLogLine = mcpserv.Line

// mcpState is the app's side of the servers.
type mcpState struct {
	m      *mcpserv.Manager
	poke   chan struct{}
	mu     sync.Mutex // one file edit (create, delete, reload) at a time
	config bool       // the accounts live in config.json (else given)
}

// startMCP reads mcp-servers.json (writing the default first when there is
// none and the bundled bridge exists), makes the missing accounts, starts
// every server and watches the file. Problems go on the start notice.
func (a *App) startMCP(ctx context.Context, o Options) {
	st := &mcpState{poke: make(chan struct{}, 1), config: o.Accounts == nil}
	a.mcp = st
	path := filepath.Join(o.Dirs.Config, mcpserv.FileName)
	st.m = mcpserv.New(mcpserv.Options{Path: path, Post: a.postNotice, Log: a.log, SignatureWait: o.MCP.SignatureWait,
		StopGrace: o.MCP.StopGrace, BaseEnv: o.BaseEnv, Changed: func() {
			select {
			case st.poke <- struct{}{}:
			default:
			}
		}})
	if o.MCP.Off {
		return
	}
	a.wg.Add(1)
	go func() { defer a.wg.Done(); a.fanMCP(ctx) }()
	dirs := o.MCP.BridgeDirs
	if dirs == nil {
		exe, _ := os.Executable()
		dirs = mcpserv.BridgeDirs(exe)
	}
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		if bridge := mcpserv.FindBridge(dirs); bridge != "" {
			if wrote, err := mcpserv.WriteDefault(path, bridge); err != nil {
				a.addNotice(fmt.Sprintf("%s was not written: %v", path, err))
			} else if wrote {
				a.log.Info("wrote the default mcp-servers.json", "path", path, "bridge", bridge)
			}
		}
	}
	if _, n := a.loadMCPParts(); len(n) > 0 { // its errors are ConfigErrors
		a.addNotice(strings.Join(n, "; "))
	}
	st.m.StartAll()
	a.watchMCP(ctx, path)
}

func (a *App) addNotice(n string) {
	a.notice = strings.TrimPrefix(a.notice+"; "+n, "; ")
}

// loadMCP reads the file again and makes the accounts its entries lack;
// it returns what the person should know ("" when nothing).
func (a *App) loadMCP() string {
	errs, notes := a.loadMCPParts()
	return strings.Join(append(errs, notes...), "; ")
}

// loadMCPParts is loadMCP with the file's errors (kept for ConfigErrors)
// apart from the rest.
func (a *App) loadMCPParts() (errs, notes []string) {
	st := a.mcp
	f := st.m.Load()
	errs = []string{}
	for _, err := range f.Errors {
		errs = append(errs, err.Error())
	}
	a.setConfigErrors(nil, errs)
	var msgs []string
	if st.config && len(f.Entries) > 0 {
		want := make([]seat.MCPAccount, 0, len(f.Entries))
		for _, e := range f.Entries {
			want = append(want, seat.MCPAccount{ID: mcpserv.AccountID(e.Name), Name: e.Name})
		}
		added, err := seat.EnsureMCPAccounts(a.dirs.ConfigFile(), want)
		switch {
		case err != nil:
			msgs = append(msgs, "the MCP servers' accounts were not written: "+err.Error())
		case len(added) > 0:
			a.log.Info("mcp accounts added to config.json", "ids", added)
			if n, _ := a.reloadAccounts(); n != "" {
				msgs = append(msgs, n)
			}
		}
	}
	return errs, msgs
}

// fanMCP turns the manager's changes into EventMCP, at most one per 100 ms
// (a chatty server's stderr must not redraw every screen per line).
func (a *App) fanMCP(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-a.mcp.poke:
		}
		a.bus.publish(Event{Kind: EventMCP})
		t := time.NewTimer(100 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// watchMCP reloads the file when it changes on disk (a hand edit, an
// editor's rename): the screen then says which servers differ. Nothing is
// restarted (spec: 編集は保存し、再起動で効く).
func (a *App) watchMCP(ctx context.Context, path string) {
	a.watchFile(ctx, path, "mcp-servers.json", func() {
		if n := a.ReloadMCPServers(); n != "" {
			a.bus.publish(Event{Kind: EventNotice, Notice: "mcp-servers.json: " + n})
		}
	})
}

// closeMCP stops every server (stdin closed, then the group signalled).
func (a *App) closeMCP() {
	if a.mcp != nil {
		a.mcp.m.Close()
	}
}

// postNotice posts one notice in every room where an AI session is seated
// (a socket connection: the person is at the screen, not on the socket)
// and says in how many; none is kept for later.
func (a *App) postNotice(n mcpserv.Notice) int {
	id := mcpserv.AccountID(n.Server)
	name := n.Server
	var hue *int
	if acc, ok := a.account(id); ok {
		name = acc.CallName()
		if acc.Hue != nil {
			h := int(math.Round(*acc.Hue))
			hue = &h
		}
	}
	posted := 0
	for _, topic := range a.engine.Topics() {
		if !holdsSession(a.engine.Roster(topic)) {
			continue
		}
		if _, err := a.engine.Notify(topic, id, name, hue, n.Text); err != nil {
			a.log.Warn("mcp notice not posted", "server", n.Server, "event", n.EventID, "topic", topic, "err", err)
			continue
		}
		posted++
	}
	return posted
}

// holdsSession reports whether a room seats anyone but the person.
func holdsSession(roster []Participant) bool {
	for _, p := range roster {
		if !p.Person {
			return true
		}
	}
	return false
}

// MCPConfigFile is mcp-servers.json's path.
func (a *App) MCPConfigFile() string { return a.mcp.m.Path() }

// MCPServers lists the servers: the file's in file order, then those of
// this run that left it.
func (a *App) MCPServers() []MCPServer {
	var out []MCPServer
	for _, s := range a.mcp.m.Status() {
		srv := MCPServer{Name: s.Name, Account: mcpserv.AccountID(s.Name), CallName: s.Name, State: string(s.State), Reason: s.Reason,
			InFile: s.InFile, Differs: s.Differs, Command: s.Entry.Command, Args: s.Entry.Args, EnvKeys: s.Entry.EnvKeys()}
		if acc, ok := a.account(srv.Account); ok {
			srv.CallName, srv.Hue = acc.CallName(), acc.Hue
		}
		out = append(out, srv)
	}
	return out
}

// MCPLog is a server's log (its stderr and the app's lines about it).
func (a *App) MCPLog(name string) []MCPLogLine { return a.mcp.m.Log(name) }

// RestartMCPServer reads the file again and restarts name from it; a
// server no longer in the file is only stopped (stopped true).
func (a *App) RestartMCPServer(name string) (stopped bool, err error) {
	if n := a.ReloadMCPServers(); n != "" {
		a.log.Warn("mcp-servers.json", "problems", n)
	}
	return a.mcp.m.Restart(name)
}

// ReloadMCPServers reads mcp-servers.json again (after the person edited
// it) and says what it found.
func (a *App) ReloadMCPServers() string {
	a.mcp.mu.Lock()
	defer a.mcp.mu.Unlock()
	return a.loadMCP()
}

// MCPForm is a new server as the person writes it.
type MCPForm = mcpserv.Form

// MCPFormText is the text the person edits to create a server.
func (a *App) MCPFormText(f MCPForm) string { return MCPFormTextFor(f, a.MCPConfigFile()) }

// MCPFormTextFor is MCPFormText for the servers file at path.
func MCPFormTextFor(f MCPForm, path string) string { return mcpserv.FormText(f, path) }

// ParseMCPForm reads the edited text back; errors name the line.
func ParseMCPForm(text string) (MCPForm, []error) { return mcpserv.ParseForm(text) }

// CreateMCPServer writes a new entry for f (its name made from f.Name,
// spec new_entry_name), then the account called f.Name, then starts it
// (spec #200: entry first, account before the start, so the first notice
// speaks with the chosen name). A failed start keeps both. It returns
// the entry's name.
func (a *App) CreateMCPServer(f MCPForm) (string, error) {
	if !a.mcp.config {
		return "", errors.New("this run's accounts are not read from config.json")
	}
	name := strings.TrimSpace(f.Name)
	if err := CheckCallName(name, a.engine.PersonName()); err != nil {
		return "", err
	}
	a.mcp.mu.Lock()
	defer a.mcp.mu.Unlock()
	file := a.mcp.m.Load()
	if file.Exists && len(file.Errors) > 0 {
		for _, err := range file.Errors {
			var fe *mcpserv.FieldError
			if errors.As(err, &fe) && fe.Field == "" {
				return "", fmt.Errorf("%v; fix the file first (nothing was written)", err)
			}
		}
	}
	used := func(s string) bool {
		if _, ok := file.Entry(s); ok {
			return true
		}
		for _, st := range a.mcp.m.Status() {
			if st.Name == s {
				return true
			}
		}
		_, ok := a.account(mcpserv.AccountID(s))
		return ok
	}
	entry := mcpserv.NewEntryName(name, used)
	if err := mcpserv.AddEntry(a.mcp.m.Path(), mcpserv.Entry{Name: entry, Command: f.Command, Args: f.Args, Env: f.Env}); err != nil {
		return "", err
	}
	if err := seat.AddAccount(a.dirs.ConfigFile(), seat.Account{ID: mcpserv.AccountID(entry), Name: name, Kind: seat.KindMCP}); err != nil {
		return entry, fmt.Errorf("the entry %s was written, but its account was not: %w", entry, err)
	}
	if n, _ := a.reloadAccounts(); n != "" {
		a.bus.publish(Event{Kind: EventNotice, Notice: n})
	}
	a.mcp.m.Load()
	if err := a.mcp.m.Start(entry); err != nil {
		return entry, fmt.Errorf("%s was created but did not start: %w", entry, err)
	}
	return entry, nil
}

// DeleteMCPServer takes name's entry out of the file (nothing else of it
// changes), stops the server and drops its state and log, then removes its
// account (spec #200, in that order: an entry left behind would make the
// account again). A file that cannot be written keeps the account. A
// server whose entry is already gone (a hand edit) only loses its account.
func (a *App) DeleteMCPServer(name string) error {
	a.mcp.mu.Lock()
	defer a.mcp.mu.Unlock()
	path := a.mcp.m.Path()
	if err := mcpserv.RemoveEntry(path, name); err != nil && !errors.Is(err, mcpserv.ErrNoEntry) {
		return err
	}
	a.mcp.m.Load()
	a.mcp.m.Forget(name)
	if a.mcp.config {
		if _, ok := a.account(mcpserv.AccountID(name)); ok {
			if err := seat.RemoveAccount(a.dirs.ConfigFile(), mcpserv.AccountID(name)); err != nil {
				return fmt.Errorf("the entry %s was removed, but its account was not: %w", name, err)
			}
			if n, _ := a.reloadAccounts(); n != "" {
				a.bus.publish(Event{Kind: EventNotice, Notice: n})
			}
		}
	}
	return nil
}
