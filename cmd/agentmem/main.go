// Command agentmem inspects, searches, exports, imports and migrates agentmem
// conversation memory stored in SQLite or PostgreSQL.
//
//	go install ./cmd/agentmem             # from a clone of the repository
//	agentmem threads                      # ./memory.db
//	agentmem --db postgres://... show THREAD
//	agentmem export > memory.jsonl
//	agentmem --db other.db --write import memory.jsonl
//
// Every command reads by default; commands that change memory refuse to run
// without --write. Text output is aligned for people; --json prints one JSON
// document (or JSON Lines for export) for scripts.
package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/agentmem/agentmem/core/memerr"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/agentmem/agentmem/cmd/agentmem/internal/clierr"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes one command line and returns the process exit code: 0 on
// success, 1 on failure, 2 for usage errors, 130 when interrupted.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	app := newApp(stdin, stdout, stderr)
	root := app.rootCommand()
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	if isUnknownCommand(err) {
		// cobra reports an unknown command as a plain error; it is a usage
		// error like an unknown flag.
		err = clierr.Usage("%s", strings.Replace(err.Error(), ` for "agentmem"`, "", 1))
	}
	app.printError(err)
	switch {
	case errors.Is(err, context.Canceled):
		return 130
	case isUsage(err):
		return 2
	default:
		return 1
	}
}

// isUnknownCommand reports whether err is cobra's "unknown command" error,
// which has no type of its own.
func isUnknownCommand(err error) bool {
	var ce *memerr.Error
	return !errors.As(err, &ce) && strings.HasPrefix(err.Error(), "unknown command ")
}

// printError reports err on stderr: a line of text, or a JSON object with the
// stable error code under --json.
func (a *app) printError(err error) {
	if a.flags.json {
		var ce *memerr.Error
		var coded interface{ Code() memerr.Code } // a sentinel returned as it is
		code := "AGENTMEM_ERROR"
		switch {
		case errors.As(err, &ce):
			code = string(ce.Code)
		case errors.As(err, &coded):
			code = string(coded.Code())
		}
		_ = writeJSON(a.stderr, map[string]any{"error": map[string]string{"code": code, "message": err.Error() + hint(err)}})
		return
	}
	fmt.Fprintln(a.stderr, "agentmem:", err.Error()+hint(err))
}

// hint says what to do about an error whose message, made below the
// command, cannot name a command to run.
func hint(err error) string {
	if errors.Is(err, memerr.ErrThreadNotFound) {
		return " (agentmem threads lists the threads)"
	}
	return ""
}
