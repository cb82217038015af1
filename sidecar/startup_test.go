package sidecar_test

import (
	"context"
	"io"
	"strings"
	"testing"

	"pullcept/sidecar"
)

var benchEnv = map[string]string{sidecar.EnvAgentName: "Lin", sidecar.EnvAgentFullName: "Claude Lin"}

// BenchmarkNew is the sidecar's set-up before it can answer initialize:
// configuration, instructions and the tool table (docs/performance.md
// "Start-up": the table was 13% of the CPU up to that answer, built from
// maps marshalled to JSON and unmarshalled again by mcp-go).
func BenchmarkNew(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		sidecar.New(sidecar.Options{Env: func(k string) string { return benchEnv[k] }, Log: io.Discard})
	}
}

// BenchmarkInitialize is New and the answer to initialize, in process.
func BenchmarkInitialize(b *testing.B) {
	const line = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}` + "\n"
	b.ReportAllocs()
	for b.Loop() {
		s := sidecar.New(sidecar.Options{Env: func(k string) string { return benchEnv[k] }, Log: io.Discard})
		if err := s.Serve(context.Background(), strings.NewReader(line), io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
