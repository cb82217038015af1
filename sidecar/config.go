package sidecar

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Environment variables the launch hands the sidecar (spec 003
// "部屋プロトコル", 002).
const (
	EnvRoomURL   = "PULLCEPT_ROOM_URL"
	EnvRoomToken = "PULLCEPT_ROOM_TOKEN"
	EnvAgentName = "PULLCEPT_AGENT_NAME"
	// EnvAgentFullName is the account's full name when its calling name
	// (the nickname) differs.
	EnvAgentFullName = "PULLCEPT_AGENT_FULL_NAME"
	EnvRoomID        = "PULLCEPT_ROOM_ID"
	EnvAgentHue      = "PULLCEPT_AGENT_HUE"
	EnvAccountID     = "PULLCEPT_ACCOUNT_ID"
	EnvUnseenHistory = "PULLCEPT_UNSEEN_HISTORY"
)

// Config is what one launch tells the sidecar.
type Config struct {
	URL       string
	Token     string
	Name      string
	FullName  string // "": the same as Name
	Room      string
	Hue       *int   // nil: no colour declared (hello omits hue)
	AccountID string // "": no account (hello omits account_id)
	// UnseenHistory: the topic has earlier posts this session has not seen.
	UnseenHistory bool
	// Missing lists the required variables that were empty.
	Missing []string
	// Warnings are values that were given but could not be used.
	Warnings []string
}

// ConfigFromEnv reads the launch's variables through env (os.Getenv in
// production). Required values that are missing are listed, never fatal: the
// MCP server still starts and every tool call names them.
func ConfigFromEnv(env func(string) string) Config {
	get := func(k string) string { return strings.TrimSpace(env(k)) }
	c := Config{
		URL:       get(EnvRoomURL),
		Token:     get(EnvRoomToken),
		Name:      get(EnvAgentName),
		FullName:  get(EnvAgentFullName),
		Room:      get(EnvRoomID),
		AccountID: get(EnvAccountID),
	}
	for _, req := range []struct{ key, val string }{
		{EnvRoomURL, c.URL}, {EnvRoomToken, c.Token}, {EnvAgentName, c.Name}, {EnvRoomID, c.Room},
	} {
		if req.val == "" {
			c.Missing = append(c.Missing, req.key)
		}
	}
	if raw := get(EnvAgentHue); raw != "" {
		if h, err := parseHue(raw); err != nil {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s=%q ignored: %v; joining without a declared hue", EnvAgentHue, raw, err))
		} else {
			c.Hue = &h
		}
	}
	c.UnseenHistory = truthy(get(EnvUnseenHistory))
	return c
}

// parseHue reads a hue in degrees; a fraction is rounded.
func parseHue(raw string) (int, error) {
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > 1e6 {
		return 0, fmt.Errorf("not a number of degrees")
	}
	return int(math.Round(f)), nil
}

// truthy: set and not an explicit no.
func truthy(v string) bool {
	switch strings.ToLower(v) {
	case "", "0", "false", "no", "off":
		return false
	}
	return true
}

// missingError is the text every tool call returns when the launch left out
// required values.
func (c Config) missingError() string {
	return fmt.Sprintf("Not connected to the room: the launch did not set %s. "+
		"This session cannot speak or read in the room until it is started again with them (the app writes them into the MCP registration).",
		strings.Join(c.Missing, ", "))
}
