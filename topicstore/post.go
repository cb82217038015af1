package topicstore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Post is one utterance of a room, exactly as one line of a topic file
// holds it. The room fills every field; the store writes it as it is.
type Post struct {
	// MessageID is the id the room gave the post; Page's before names it.
	MessageID string
	// Speaker is the name the post was said under.
	Speaker string
	// FullName is the speaker's longer name, when there is one.
	FullName string
	// Account is the id of the account the speaker declared, when there is one.
	Account string
	// FromApp is true only for what the application itself said.
	FromApp bool
	// Content is the text of the post.
	Content string
	// To lists the names the post is addressed to; nil means everyone.
	To []string
	// TS is the time of the post, UTC RFC 3339, as the room wrote it.
	TS string
}

// lineOut fixes the order of the keys of a written line: message_id,
// speaker, full_name?, account?, from_app?, content, to?, ts. Optional keys
// are omitted when empty, never written as null.
type lineOut struct {
	MessageID string   `json:"message_id"`
	Speaker   string   `json:"speaker"`
	FullName  string   `json:"full_name,omitempty"`
	Account   string   `json:"account,omitempty"`
	FromApp   bool     `json:"from_app,omitempty"`
	Content   string   `json:"content"`
	To        []string `json:"to,omitempty"`
	TS        string   `json:"ts"`
}

// lineIn is what a line may hold when read. Pointers tell a missing key from
// an empty value; to is raw because old lines hold one name as a string.
type lineIn struct {
	MessageID *string         `json:"message_id"`
	Speaker   *string         `json:"speaker"`
	FullName  string          `json:"full_name"`
	Account   string          `json:"account"`
	FromApp   bool            `json:"from_app"`
	Content   *string         `json:"content"`
	To        json.RawMessage `json:"to"`
	TS        string          `json:"ts"`
}

// Line returns p as one JSON line ending in "\n", with the keys in the order
// of the log format and the optional ones omitted when empty. HTML
// characters are written as they are. Invalid UTF-8 in a field is written
// as U+FFFD.
func (p Post) Line() []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	to := p.To
	if len(to) == 0 {
		to = nil
	}
	// Encoding a struct of strings, a bool and a string slice cannot fail.
	_ = enc.Encode(lineOut{
		MessageID: p.MessageID,
		Speaker:   p.Speaker,
		FullName:  p.FullName,
		Account:   p.Account,
		FromApp:   p.FromApp,
		Content:   p.Content,
		To:        to,
		TS:        p.TS,
	})
	return buf.Bytes()
}

// ParseLine reads one line of a topic file (with or without its trailing
// newline). The line must be one JSON object holding message_id, speaker
// and content as strings; the other keys are optional and unknown keys are
// ignored. A to written by older versions as one name in a string reads as
// a list of that name. Anything else is an error wrapping ErrBadLine.
func ParseLine(line []byte) (Post, error) {
	var in lineIn
	if err := json.Unmarshal(line, &in); err != nil {
		return Post{}, fmt.Errorf("topicstore: %w: %w", ErrBadLine, err)
	}
	switch {
	case in.MessageID == nil:
		return Post{}, fmt.Errorf("topicstore: %w: no message_id", ErrBadLine)
	case in.Speaker == nil:
		return Post{}, fmt.Errorf("topicstore: %w: no speaker", ErrBadLine)
	case in.Content == nil:
		return Post{}, fmt.Errorf("topicstore: %w: no content", ErrBadLine)
	}
	to, err := parseTo(in.To)
	if err != nil {
		return Post{}, err
	}
	return Post{
		MessageID: *in.MessageID,
		Speaker:   *in.Speaker,
		FullName:  in.FullName,
		Account:   in.Account,
		FromApp:   in.FromApp,
		Content:   *in.Content,
		To:        to,
		TS:        in.TS,
	}, nil
}

// parseTo reads the to key: absent, null, "" or [] mean no addressee; a
// string is the one name of an old line; a list of strings is the names.
func parseTo(raw json.RawMessage) ([]string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	if raw[0] == '"' {
		var one string
		if err := json.Unmarshal(raw, &one); err != nil {
			return nil, fmt.Errorf("topicstore: %w: to: %w", ErrBadLine, err)
		}
		if one == "" {
			return nil, nil
		}
		return []string{one}, nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("topicstore: %w: to: %w", ErrBadLine, err)
	}
	if len(list) == 0 {
		return nil, nil
	}
	return list, nil
}

// NameRunes is the longest name, in runes and counting the ellipsis, that a
// first post gives a topic.
const NameRunes = 40

// MaxNameRunes is the longest name Rename accepts, in runes.
const MaxNameRunes = 200

// nameFrom derives a topic name from the content of its first post: the
// first line that has anything left once control characters are dropped
// and runs of white space are collapsed to one space, cut to NameRunes
// runes with "…" when longer. It returns "" when no line has anything.
func nameFrom(content string) string {
	for line := range strings.SplitSeq(content, "\n") {
		if name := cleanName(line); name != "" {
			return cutName(name, NameRunes)
		}
	}
	return ""
}

// cleanName makes s one line: white space (tabs and line breaks included)
// runs become one space, other control and format characters are dropped,
// invalid UTF-8 is dropped, and the ends are trimmed.
func cleanName(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		switch {
		case r == utf8.RuneError:
			continue
		case unicode.IsSpace(r):
			space = true
			continue
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r):
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

// cutName cuts s to at most n runes, the last of them "…" when it had to cut.
func cutName(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i, count := 0, 0
	for j := range s {
		if count == n-1 {
			i = j
			break
		}
		count++
	}
	return strings.TrimRight(s[:i], " ") + "…"
}
