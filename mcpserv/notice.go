package mcpserv

// What a notifications/claude/channel push becomes in the room (spec 003
// "webhook の通知" #410, "書き手は本文の最終行の署名で見分ける" #269/#270):
// the summary as the bridge wrote it, the fixed English line that hands
// the event id to the session that will mark it processed, and — for a
// body written now — 署名: <name> read from the body's last line.

import (
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ChannelMethod is the notification the bridges push.
const ChannelMethod = "notifications/claude/channel"

// MarkLinePrefix starts the line every notice carries (#410; the English
// is the Master's).
const MarkLinePrefix = "If this is your own operation, mark it processed now: event_id="

// SignaturePrefix starts the line a signed notice begins with.
const SignaturePrefix = "署名: "

// MarkLine is the mark-processed line for event id.
func MarkLine(id string) string { return MarkLinePrefix + id }

// isURLLine reports whether line is a bare URL: https:// or http:// and
// no white space.
func isURLLine(line string) bool {
	return (strings.HasPrefix(line, "https://") || strings.HasPrefix(line, "http://")) && strings.IndexFunc(line, unicode.IsSpace) < 0
}

// Prompted is content with the mark-processed line for id: before the
// last line when that line is a URL, else at the end (#410).
func Prompted(content, id string) string {
	mark := MarkLine(id)
	i := strings.LastIndexByte(content, '\n')
	last := content[i+1:]
	if isURLLine(last) {
		if i < 0 {
			return mark + "\n" + last
		}
		return content[:i] + "\n" + mark + "\n" + last
	}
	if content == "" {
		return mark
	}
	return content + "\n" + mark
}

// Signed is content with 署名: name as its first line.
func Signed(content, name string) string {
	return SignaturePrefix + name + "\n" + content
}

// Text is the notice's body as posted: Prompted, then Signed when name is
// not "".
func Text(content, id, signer string) string {
	t := Prompted(content, id)
	if signer != "" {
		t = Signed(t, signer)
	}
	return t
}

// bodyAt is where each kind keeps the body written with it.
var bodyAt = map[string][2]string{
	"issue_comment":               {"comment", "body"},
	"pull_request_review_comment": {"comment", "body"},
	"discussion_comment":          {"comment", "body"},
	"issues":                      {"issue", "body"},
	"pull_request":                {"pull_request", "body"},
	"pull_request_review":         {"review", "body"},
}

// signedActions are the actions whose body was written now: edited is not
// (the editor need not be the signer), closed, labeled, … carry an older
// body.
var signedActions = map[string]bool{"created": true, "opened": true, "submitted": true}

// WantsSignature reads the summary's [kind] (first line) and its
// "action: " line and says whether the event carries a body written now;
// kind is the event's kind then.
func WantsSignature(content string) (kind string, ok bool) {
	lines := strings.Split(content, "\n")
	first := lines[0]
	if !strings.HasPrefix(first, "[") {
		return "", false
	}
	end := strings.IndexByte(first, ']')
	if end < 0 {
		return "", false
	}
	kind = first[1:end]
	if _, known := bodyAt[kind]; !known {
		return "", false
	}
	for _, l := range lines[1:] {
		if a, ok := strings.CutPrefix(l, "action: "); ok {
			return kind, signedActions[strings.TrimSpace(a)]
		}
	}
	return "", false
}

// MaxSignatureRunes bounds a signature's name.
const MaxSignatureRunes = 64

// Signature is the name a body's last line signs (#270: U+2014, one
// space, the name), "" when that line is no signature. Trailing blank
// lines and a line's \r do not count: a body typed on GitHub often ends
// with a newline.
func Signature(body string) string {
	body = strings.TrimRight(strings.ReplaceAll(body, "\r\n", "\n"), "\n\r \t")
	last := body[strings.LastIndexByte(body, '\n')+1:]
	name, ok := strings.CutPrefix(last, "— ")
	if !ok {
		return ""
	}
	name = strings.TrimRight(name, " \t")
	if name == "" || !utf8.ValidString(name) || utf8.RuneCountInString(name) > MaxSignatureRunes {
		return ""
	}
	r, _ := utf8.DecodeRuneInString(name)
	if unicode.IsSpace(r) {
		return "" // two spaces: not the format
	}
	for _, r := range name {
		if unicode.IsControl(r) {
			return ""
		}
	}
	return name
}

// Signer is the signature in get_event's answer (the stored record, its
// GitHub body under payload) for an event of kind; "" when there is none.
func Signer(record, kind string) string {
	at, ok := bodyAt[kind]
	if !ok {
		return ""
	}
	var rec struct {
		Payload map[string]json.RawMessage `json:"payload"`
	}
	if json.Unmarshal([]byte(record), &rec) != nil {
		return ""
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(rec.Payload[at[0]], &obj) != nil {
		return ""
	}
	var body string
	if json.Unmarshal(obj[at[1]], &body) != nil {
		return ""
	}
	return Signature(body)
}
