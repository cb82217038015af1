package wire

import (
	"fmt"
	"os"
	"regexp"
	"testing"
)

// The benchmark driver (bench/, a module of its own) writes its own hello
// and cannot import this package: its constant must follow ProtocolVersion.
func TestBenchSpeaksTheRoomProtocol(t *testing.T) {
	src, err := os.ReadFile("../../bench/pcbench/room.go")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^const wireProtocol = (\d+)$`).FindSubmatch(src)
	if m == nil {
		t.Fatal("bench/pcbench/room.go declares no wireProtocol")
	}
	if got := string(m[1]); got != fmt.Sprint(ProtocolVersion) {
		t.Errorf("bench/pcbench/room.go speaks room protocol %s, the room %d: change its wireProtocol", got, ProtocolVersion)
	}
}
