// Command kmeta reads kernel metadata: BTF type information and kallsyms.
//
// Every subcommand is a method on cli that builds a cobra command; the
// command's RunE does nothing but parse flags and call library packages, so
// the whole CLI can be driven in process by tests through run.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/kmeta-dev/kmeta/internal/atomicfile"
	"github.com/kmeta-dev/kmeta/internal/input"
	// Grows the main goroutine's stack early, while it is shallow.
	_ "github.com/kmeta-dev/kmeta/internal/stackstart"
)

// exitGrace is how long kmeta waits, after SIGINT or SIGTERM, for the
// command to notice the cancelled context and return. Every command checks
// the context in its long loops and returns long before; only one stuck
// in a system call that no context reaches needs it. Tests lengthen it.
var exitGrace = 500 * time.Millisecond

// onGraceExit, if not nil, runs when exitGrace ends kmeta: tests set it to
// learn that a command did not return by itself.
var onGraceExit func()

func main() {
	releaseStartup = releaseStartupPages
	ctx, stop := signalContext()
	err := run(ctx, argsAs(os.Args), os.Stdin, os.Stdout, os.Stderr)
	stop()
	if line := errorLine(ctx, err); line != "" {
		fmt.Fprintln(os.Stderr, line)
	}
	os.Exit(exitStatus(ctx, err))
}

// errorLine is the one line kmeta prints on stderr for the error err, or
// "" for none. A command that a signal ended says only that, in the same
// words whatever it was doing (reading a FIFO, deduplicating, writing),
// and as a second signal does.
func errorLine(ctx context.Context, err error) string {
	if sig, ok := context.Cause(ctx).(signalCause); ok && err != nil {
		return "kmeta: " + sig.Error()
	}
	if printable(err) {
		// Joined errors (errors.Join: one per worker of a library) are
		// a line each: one line for them all.
		return "kmeta: " + strings.ReplaceAll(strings.TrimSpace(err.Error()), "\n", "; ")
	}
	return ""
}

// signalContext returns a context that SIGINT or SIGTERM cancels, with the
// signal as its cause, so that the exit status can be 128+signal. Commands
// check the context and return; one that is stuck in a system call that
// no context reaches (a write to a pipe nobody reads) is ended after
// exitGrace, or at once by a second signal, with the same status, and
// without the temporary files of the outputs it was writing.
func signalContext() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig, ok := <-ch
		if !ok {
			return
		}
		status := 128 + int(sig.(syscall.Signal))
		cancel(signalCause{sig: sig.(syscall.Signal)})
		select {
		case <-ch:
		case <-time.After(exitGrace):
			if onGraceExit != nil {
				onGraceExit()
			}
		}
		// The command has not returned: remove the temporary files of
		// the outputs it was writing, which its own cleanup would have.
		atomicfile.RemoveTemporary()
		fmt.Fprintf(os.Stderr, "kmeta: %v\n", signalCause{sig: sig.(syscall.Signal)})
		os.Exit(status)
	}()
	return ctx, func() {
		signal.Stop(ch)
		cancel(nil)
	}
}

// releaseStartup, if not nil, gives back the binary's pages that
// starting the process touched (releaseStartupPages). main sets it; a
// test running commands in process leaves it nil, since its binary is
// not the command's.
var releaseStartup func()

// dropStartupPages gives back, once, the binary's pages that starting
// the process touched. A writer whose peak memory is set against a C
// peer's (btf dedup, btf copy) calls it once its flags are parsed; a
// reading command, once it knows that its input is large (limitMemory),
// where its peak nears the README's bound.
func dropStartupPages() {
	if release := releaseStartup; release != nil {
		releaseStartup = nil
		release()
	}
}

// cli carries the standard streams a command reads and writes. Tests create
// one with buffers in place of the process's streams.
type cli struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	// ctx is cancelled by SIGINT and SIGTERM: long loops and reads check
	// it.
	ctx context.Context
	// maxInput bounds every input (--max-input, KMETA_MAX_INPUT); 0 means
	// btf.DefaultMaxSize.
	maxInput int64
	// preread holds inputs that could be checked only by reading them
	// (standard input, a pipe), read before a command's costly
	// preparation, by name (checkBTFInputs).
	preread   map[string]*input.Data
	prereadMu sync.Mutex
	// evictOpen makes readOptions release a mapped input's records
	// behind the open's check (btf copy, which reads them again in order).
	evictOpen bool
}

// run executes kmeta with args (without the program name). Errors are
// returned, not printed, so that main prints exactly one line for them.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (err error) {
	defer guardFaults(&err)()
	c := &cli{stdin: stdin, stdout: stdout, stderr: stderr, ctx: ctx}
	root := c.rootCmd()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(ctx)
	var um *usageMistake
	if errors.As(err, &um) && cmd != nil {
		err = usageError(cmd, um.err)
	}
	return nameCommand(cmd, withHint(err))
}

// nameCommand starts the message of err with the command that failed,
// "btf copy: -o /tmp: is a directory", also for a usage error (cobra's own
// among them), which names the command's usage line too, unless it says
// nothing (errQuiet).
func nameCommand(cmd *cobra.Command, err error) error {
	if err == nil || err == errQuiet || cmd == nil || !cmd.HasParent() {
		return err
	}
	return &commandError{name: strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" "), err: err}
}

// commandError is an error of the command name.
type commandError struct {
	name string
	err  error
}

// Error is "NAME: what went wrong", without the prefix of the package
// that the command runs when it repeats the command's last word ("btf
// layout: no struct ...", not "btf layout: layout: no struct ...").
func (e *commandError) Error() string {
	msg := e.err.Error()
	last := e.name[strings.LastIndexByte(e.name, ' ')+1:]
	return e.name + ": " + strings.TrimPrefix(msg, last+": ")
}
func (e *commandError) Unwrap() error { return e.err }

func (c *cli) rootCmd() *cobra.Command {
	var maxInput string
	var showVersion bool
	root := &cobra.Command{
		Use:           "kmeta",
		Short:         "Read kernel metadata: BTF types and kallsyms",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			if showVersion {
				return nil // cobra's --version ignores every other flag
			}
			return c.parseMaxInput(maxInput)
		},
	}
	root.PersistentFlags().StringVar(&maxInput, "max-input", "",
		"largest input to read: each file as stored, and what compressed data inflates to (`SIZE`: bytes, or with K, M, G; default 1G or $"+envMaxInput+")")
	btfCmd := &cobra.Command{
		Use:   "btf",
		Short: "Inspect, search, write and print BTF type information",
	}
	btfCmd.AddCommand(
		c.btfDumpCmd(),
		c.btfListCmd(),
		c.btfFindCmd(),
		c.btfModulesCmd(),
		c.btfMinCmd(),
		c.btfCoreCmd(),
		c.btfCopyCmd(),
		c.btfLayoutCmd(),
		c.btfEncodeCmd(),
		c.btfDistillCmd(),
		c.btfDiffCmd(),
		c.btfDedupCmd(),
	)
	root.AddCommand(btfCmd, c.ksymCmd(), c.paholeCmd(), c.versionCmd(), c.manCmd())
	// cobra adds its completion and help commands when it runs: add them
	// now, so that strictUsage makes "completion bassh" a usage error
	// with a suggestion, as for every command, not help and status 0.
	// The completion command takes its output stream when it is made.
	root.SetOut(c.stdout)
	root.SetErr(c.stderr)
	root.InitDefaultCompletionCmd()
	root.SetHelpCommand(helpCmd())
	strictUsage(root)
	versionFlag(root, &showVersion, c.printVersion)
	return root
}

// versionFlag gives root the --version (-v) flag that cobra adds for a
// command with a Version, with the same help, and prints what `kmeta
// version` prints. cobra prints its version through a text/template
// unless it is "NAME version VERSION"; linking text/template's executor,
// which calls methods by name, makes the linker keep every exported method
// of every type in the binary: 1.6 MB more code and tables, and 0.7 MB
// more resident at start-up (cmd/kmeta/BENCH.md, "The floor, accounted
// for, and the version template").
// root must be runnable (strictUsage), so that cobra runs its RunE, where
// the flag is handled; like cobra's, the flag wins over arguments.
func versionFlag(root *cobra.Command, show *bool, print func() error) {
	root.Flags().BoolVarP(show, "version", "v", false, "version for "+root.Name())
	// Completion offers nothing after it, as after cobra's own flag.
	_ = root.Flags().SetAnnotation("version", cobra.FlagSetByCobraAnnotation, []string{"true"})
	run := root.RunE
	root.RunE = func(cmd *cobra.Command, args []string) error {
		if *show {
			return print()
		}
		return run(cmd, args)
	}
}
