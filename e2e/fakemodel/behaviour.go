package fakemodel

import (
	"encoding/json"
	"strings"

	"pullcept/room/wire"
)

// SayToRoom is the room's MCP tool that AckBehaviour calls.
const SayToRoom = "say_to_room"

// ParseTagged finds the first `[pullcept] {...}` tag line in a user turn and
// returns the tag and the body (the lines after it, trimmed). ok is false
// when the turn has no parsable tag line.
func ParseTagged(turn string) (tag wire.Tag, body string, ok bool) {
	lines := strings.Split(strings.ReplaceAll(turn, "\r\n", "\n"), "\n")
	for i, l := range lines {
		rest, found := strings.CutPrefix(strings.TrimSpace(l), wire.TagPrefix)
		if !found {
			continue
		}
		if json.Unmarshal([]byte(rest), &tag) != nil {
			return wire.Tag{}, "", false
		}
		return tag, strings.TrimSpace(strings.Join(lines[i+1:], "\n")), true
	}
	return wire.Tag{}, "", false
}

// AckBehaviour answers a tagged room post by calling say_to_room with content
// prefix+body and last_seen = the tag's message_id; once say_to_room's result
// is back it ends the turn with text. A turn without a tag line gets text.
//
// AckBehaviour("ack: ") answers `[pullcept] {"message_id":"m1",...}` + "\nhello"
// with say_to_room{"content":"ack: hello","last_seen":"m1"}.
func AckBehaviour(prefix string) Behaviour {
	return func(r Request) Reply {
		tag, body, ok := ParseTagged(r.LastUserTurn())
		if !ok {
			return Say("ok")
		}
		if len(r.ResultsFor(SayToRoom)) > 0 {
			return Say("acked " + tag.MessageID)
		}
		args := map[string]any{"content": prefix + body}
		if tag.MessageID != "" {
			args["last_seen"] = tag.MessageID
		}
		return Call(SayToRoom, args)
	}
}
