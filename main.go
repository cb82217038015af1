// Command pullcept is a room where one person and several AI coding CLIs
// talk together: one binary for every command (package cli), the server
// included.
package main

import "pullcept/cli"

func main() { cli.Main() }
