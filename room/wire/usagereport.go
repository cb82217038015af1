package wire

import "time"

// UsageReport is one report of a seat's figures (Claude's status line,
// Codex's rollout token_count), from the seat or the hook that read them
// to the room's book. A figure the report does not carry is nil or "": it
// leaves the one received before.
type UsageReport struct {
	Model, Effort      string
	FiveHour, SevenDay *Window
	// Context is the percentage of the context window in use, 0–100.
	Context *float64
	// Limit reports that the CLI stopped at its usage limit (the seat's
	// own business: the room's book does not keep it).
	Limit *UsageLimit
}

// Empty says the report carries no figure.
func (r UsageReport) Empty() bool {
	return r.Model == "" && r.Effort == "" && r.FiveHour == nil && r.SevenDay == nil && r.Context == nil && r.Limit == nil
}

// UsageLimit is a stop at the usage limit.
type UsageLimit struct {
	// Until is when the limit lifts; zero means unknown.
	Until time.Time
	// Message is the CLI's own words.
	Message string
}
