package sidecar

// The seat's own names (spec 003 ニックネームと元の名前, #383): the calling
// name the room addresses it by and the account's name when it differs.
// They start as the launch gave them (the instructions keep those) and
// follow the room's identity frames: a rename while seated reaches the
// tools' descriptions (tools/list, with list_changed) and every tool result.

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"pullcept/room/wire"
)

// names is the seat's current identity.
type names struct{ name, full string }

// self is the names the room calls this seat by now.
func (s *Sidecar) self() names {
	s.namesMu.Lock()
	defer s.namesMu.Unlock()
	return s.names
}

// identify takes the room's identity frame; a change re-registers the tools
// so their descriptions say the new names.
func (s *Sidecar) identify(id wire.Identity) {
	n := names{name: strings.TrimSpace(id.Name), full: strings.TrimSpace(id.FullName)}
	if n.name == "" {
		return
	}
	if n.full == n.name {
		n.full = ""
	}
	s.namesMu.Lock()
	changed := n != s.names
	s.names = n
	s.namesMu.Unlock()
	if changed {
		s.log.Info("the room calls this seat by new names", "name", n.name, "full_name", n.full)
		s.addTools()
	}
}

// selfText is who the seat is, as tool results and descriptions say it.
func (n names) selfText() string {
	if n.name == "" {
		return "you: (unnamed: " + EnvAgentName + " is not set)"
	}
	t := "you: " + n.name
	if n.full != "" {
		t += " (full name: " + n.full + ")"
	}
	return t
}

// describe adds the seat's current names to a tool's description.
func (n names) describe(desc string) string {
	if n.name == "" {
		return desc
	}
	return desc + " The room calls you " + n.name + addressHint(n) + "."
}

func addressHint(n names) string {
	if n.full == "" {
		return ""
	}
	return " (your full name " + n.full + " is not an address)"
}

// withSelf appends who the seat is to a result's text.
func (s *Sidecar) withSelf(r *mcp.CallToolResult) *mcp.CallToolResult {
	return appendText(r, "— "+s.self().selfText())
}

// appendText adds a block after a result's first text content.
func appendText(r *mcp.CallToolResult, block string) *mcp.CallToolResult {
	for i, c := range r.Content {
		if t, ok := c.(mcp.TextContent); ok {
			t.Text += "\n\n" + block
			r.Content[i] = t
			return r
		}
	}
	r.Content = append(r.Content, mcp.NewTextContent(block))
	return r
}

// withSelfJSON is withSelf for a tool that answers one JSON object: the
// object gains your_name (and your_full_name), so it stays one object.
func (s *Sidecar) withSelfJSON(h server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		r, err := h(ctx, req)
		if r == nil || err != nil {
			return r, err
		}
		for i, c := range r.Content {
			t, ok := c.(mcp.TextContent)
			if !ok {
				continue
			}
			var obj map[string]any
			if json.Unmarshal([]byte(t.Text), &obj) != nil || obj == nil {
				return r, nil
			}
			n := s.self()
			obj["your_name"] = n.name
			if n.full != "" {
				obj["your_full_name"] = n.full
			}
			if b, err := json.Marshal(obj); err == nil {
				t.Text = string(b)
				r.Content[i] = t
			}
			return r, nil
		}
		return r, nil
	}
}
