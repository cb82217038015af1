// Command pullcept is a room where one person and several AI coding CLIs
// talk together. This is the front binary: the commands a person and the
// CLIs run often, linking nothing heavy (package cli); it execs the server
// binary, pullcept-server, for the commands that run the engine.
package main

import "pullcept/cli"

func main() { cli.Main(cli.ExecServer) }
