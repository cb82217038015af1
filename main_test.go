package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"pullcept/room/wire"
)

func TestVersion(t *testing.T) {
	for _, arg := range []string{"version", "--version"} {
		var out bytes.Buffer
		if err := run(context.Background(), []string{arg}, nil, &out, &out); err != nil {
			t.Fatal(err)
		}
		if s := out.String(); !strings.HasPrefix(s, "pullcept ") || !strings.Contains(s, fmt.Sprintf("room protocol %d", wire.ProtocolVersion)) {
			t.Errorf("%s: %q", arg, s)
		}
	}
}
