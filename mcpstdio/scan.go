package mcpstdio

// The envelope of a message, read without encoding/json's decoder: its
// first use in a process (reflection over the target type, its code paged
// in) costs about 0.3 ms on the project's machine, the whole start-up
// budget, and the answer to initialize needs none of it. json.Valid (the
// scanner alone, no reflection) checks the line; members then only splits
// valid JSON. Params are decoded with encoding/json where a method needs
// them, after the answer the CLI waits for.

import (
	"encoding/json"
	"unicode/utf8"
)

// members calls f with each member of the JSON object b (valid JSON, an
// object) as its key (still quoted) and its raw value. It stops early when
// f returns false.
func members(b []byte, f func(key, value []byte) bool) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return
	}
	i++
	for {
		i = skipSpace(b, i)
		if i >= len(b) || b[i] == '}' {
			return
		}
		if b[i] == ',' {
			i = skipSpace(b, i+1)
		}
		k := skipValue(b, i) // the key, a string
		key := b[i:k]
		i = skipSpace(b, k)
		if i >= len(b) || b[i] != ':' {
			return
		}
		i = skipSpace(b, i+1)
		v := skipValue(b, i)
		if !f(key, b[i:v]) {
			return
		}
		i = v
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the end of the value starting at i (valid JSON).
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		for i++; i < len(b); i++ {
			switch b[i] {
			case '\\':
				i++
			case '"':
				return i + 1
			}
		}
		return i
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = skipValue(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return i
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
		i++
	}
	return i
}

// unquote is the JSON string raw (quoted) holds; ok is false when raw is
// not a string.
func unquote(raw []byte) (s string, ok bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	plain := utf8.Valid(inner)
	for _, c := range inner {
		if c == '\\' {
			plain = false
			break
		}
	}
	if plain {
		return string(inner), true
	}
	// Escapes (or bytes that are not UTF-8): encoding/json's rules, rarely
	// needed.
	return s, json.Unmarshal(raw, &s) == nil
}

// member finds one member of the object raw (valid JSON); nil when absent
// or raw is not an object.
func member(raw []byte, name string) []byte {
	var found []byte
	members(raw, func(k, v []byte) bool {
		if key, ok := unquote(k); ok && key == name {
			found = v // the last one, as encoding/json has it
		}
		return true
	})
	return found
}
