// Command dashlab runs the dashlab engine from the command line: the model
// catalogue, experiment validation, single simulations, the GPU timing model
// and the reproduction of the paper's published numbers.
//
// Each subcommand lives in its own file and registers itself in init.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// command is one dashlab subcommand.
type command struct {
	name    string
	summary string
	// run executes the command with its arguments (the subcommand name
	// removed). Errors are printed by main with a non-zero exit.
	run func(args []string, stdin io.Reader, stdout, stderr io.Writer) error
}

var commands = map[string]*command{}

// register adds a subcommand; called from init functions.
func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("dashlab: duplicate command " + c.name)
	}
	commands[c.name] = c
}

// errUsage marks an error whose message is a usage text; main exits 2.
var errUsage = errors.New("usage")

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is main without the process: it returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "dashlab: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
	if err := c.run(args[1:], stdin, stdout, stderr); err != nil {
		if errors.Is(err, errHelp) {
			return 0
		}
		if errors.Is(err, errUsage) {
			fmt.Fprintln(stderr, strings.TrimSuffix(err.Error(), ": usage"))
			return 2
		}
		fmt.Fprintf(stderr, "dashlab %s: %v\n", c.name, err)
		return 1
	}
	return 0
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "dashlab: the DASH (HBM + HBF) MoE inference simulator")
	fmt.Fprintln(w, "\nUsage: dashlab <command> [flags]\n\nCommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'dashlab <command> -h' for a command's flags.")
}
