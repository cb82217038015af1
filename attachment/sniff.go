package attachment

// Content sniffing for a file whose extension says nothing: the algorithm
// and table of net/http's DetectContentType (Go's src/net/http/sniff.go,
// after https://mimesniff.spec.whatwg.org/, BSD licence), copied when the
// server linked no net/http (issue 13, point 1; docs/decisions.md "One
// binary").
// TestSniffIsNetHTTP compares the two.

import (
	"bytes"
	"encoding/binary"
)

// sniffLen is how many bytes the sniffer reads.
const sniffLen = 512

// sniffSig is one signature: data (after leading white space when skipWS)
// starts with pat, compared through mask when there is one.
type sniffSig struct {
	pat, mask string
	skipWS    bool
	ct        string
}

// htmlSigs start an HTML document (case-insensitive for letters, after
// white space, followed by a space or '>').
var htmlSigs = []string{
	"<!DOCTYPE HTML", "<HTML", "<HEAD", "<SCRIPT", "<IFRAME", "<H1", "<DIV", "<FONT", "<TABLE", "<A",
	"<STYLE", "<TITLE", "<B", "<BODY", "<BR", "<P", "<!--",
}

// sniffSigs follow the HTML ones, in net/http's order.
var sniffSigs = []sniffSig{
	{pat: "<?xml", mask: "\xFF\xFF\xFF\xFF\xFF", skipWS: true, ct: "text/xml"},
	{pat: "%PDF-", ct: "application/pdf"},
	{pat: "%!PS-Adobe-", ct: "application/postscript"},
	{pat: "\xFE\xFF\x00\x00", mask: "\xFF\xFF\x00\x00", ct: "text/plain"},
	{pat: "\xFF\xFE\x00\x00", mask: "\xFF\xFF\x00\x00", ct: "text/plain"},
	{pat: "\xEF\xBB\xBF\x00", mask: "\xFF\xFF\xFF\x00", ct: "text/plain"},
	{pat: "\x00\x00\x01\x00", ct: "image/x-icon"},
	{pat: "\x00\x00\x02\x00", ct: "image/x-icon"},
	{pat: "BM", ct: "image/bmp"},
	{pat: "GIF87a", ct: "image/gif"},
	{pat: "GIF89a", ct: "image/gif"},
	{pat: "RIFF\x00\x00\x00\x00WEBPVP", mask: "\xFF\xFF\xFF\xFF\x00\x00\x00\x00\xFF\xFF\xFF\xFF\xFF\xFF", ct: "image/webp"},
	{pat: "\x89PNG\x0D\x0A\x1A\x0A", ct: "image/png"},
	{pat: "\xFF\xD8\xFF", ct: "image/jpeg"},
	{pat: "FORM\x00\x00\x00\x00AIFF", mask: "\xFF\xFF\xFF\xFF\x00\x00\x00\x00\xFF\xFF\xFF\xFF", ct: "audio/aiff"},
	{pat: "ID3", mask: "\xFF\xFF\xFF", ct: "audio/mpeg"},
	{pat: "OggS\x00", mask: "\xFF\xFF\xFF\xFF\xFF", ct: "application/ogg"},
	{pat: "MThd\x00\x00\x00\x06", mask: "\xFF\xFF\xFF\xFF\xFF\xFF\xFF\xFF", ct: "audio/midi"},
	{pat: "RIFF\x00\x00\x00\x00AVI ", mask: "\xFF\xFF\xFF\xFF\x00\x00\x00\x00\xFF\xFF\xFF\xFF", ct: "video/avi"},
	{pat: "RIFF\x00\x00\x00\x00WAVE", mask: "\xFF\xFF\xFF\xFF\x00\x00\x00\x00\xFF\xFF\xFF\xFF", ct: "audio/wave"},
	{ct: "video/mp4"}, // no pattern: isMP4
	{pat: "\x1A\x45\xDF\xA3", ct: "video/webm"},
	{pat: "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00LP",
		mask: "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xFF\xFF",
		ct:   "application/vnd.ms-fontobject"},
	{pat: "\x00\x01\x00\x00", ct: "font/ttf"},
	{pat: "OTTO", ct: "font/otf"},
	{pat: "ttcf", ct: "font/collection"},
	{pat: "wOFF", ct: "font/woff"},
	{pat: "wOF2", ct: "font/woff2"},
	{pat: "\x1F\x8B\x08", ct: "application/x-gzip"},
	{pat: "PK\x03\x04", ct: "application/zip"},
	{pat: "Rar!\x1A\x07\x00", ct: "application/x-rar-compressed"},
	{pat: "Rar!\x1A\x07\x01\x00", ct: "application/x-rar-compressed"},
	{pat: "\x00\x61\x73\x6D", ct: "application/wasm"},
}

// sniff is the media type of content starting with data, without
// parameters (net/http's DetectContentType up to its ';').
func sniff(data []byte) string {
	if len(data) > sniffLen {
		data = data[:sniffLen]
	}
	ws := 0
	for ws < len(data) && isSniffWS(data[ws]) {
		ws++
	}
	for _, h := range htmlSigs {
		if isHTML(data[ws:], h) {
			return "text/html"
		}
	}
	for _, s := range sniffSigs {
		if s.matches(data, ws) {
			return s.ct
		}
	}
	for _, b := range data[ws:] {
		if b <= 0x08 || b == 0x0B || 0x0E <= b && b <= 0x1A || 0x1C <= b && b <= 0x1F {
			return "application/octet-stream"
		}
	}
	return "text/plain"
}

func (s sniffSig) matches(data []byte, ws int) bool {
	if s.pat == "" {
		return isMP4(data)
	}
	if s.mask == "" {
		return bytes.HasPrefix(data, []byte(s.pat))
	}
	if s.skipWS {
		data = data[ws:]
	}
	if len(data) < len(s.pat) {
		return false
	}
	for i := range len(s.pat) {
		if data[i]&s.mask[i] != s.pat[i] {
			return false
		}
	}
	return true
}

func isSniffWS(b byte) bool {
	return b == '\t' || b == '\n' || b == '\x0c' || b == '\r' || b == ' '
}

func isHTML(data []byte, sig string) bool {
	if len(data) < len(sig)+1 {
		return false
	}
	for i := range len(sig) {
		b, db := sig[i], data[i]
		if 'A' <= b && b <= 'Z' {
			db &= 0xDF
		}
		if b != db {
			return false
		}
	}
	return data[len(sig)] == ' ' || data[len(sig)] == '>'
}

// isMP4: an ftyp box whose brands include "mp4"
// (https://mimesniff.spec.whatwg.org/#signature-for-mp4).
func isMP4(data []byte) bool {
	if len(data) < 12 {
		return false
	}
	size := int(binary.BigEndian.Uint32(data[:4]))
	if len(data) < size || size%4 != 0 || string(data[4:8]) != "ftyp" {
		return false
	}
	for st := 8; st < size; st += 4 {
		if st != 12 && string(data[st:st+3]) == "mp4" { // 12: the minor version
			return true
		}
	}
	return false
}
