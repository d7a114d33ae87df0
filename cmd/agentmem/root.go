package main

import (
	"errors"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentmem/agentmem/cmd/agentmem/internal/clierr"
	"github.com/agentmem/agentmem/core/memerr"
)

// CodeReadOnly is the code of a write command run without --write; the
// command's other codes are in package clierr, core's cover everything else.
const CodeReadOnly memerr.Code = "AGENTMEM_READ_ONLY"

// ErrReadOnly is returned (errors.Is) by every write command run without --write.
var ErrReadOnly = memerr.NewSentinel(CodeReadOnly, "this command changes memory; add --write to allow it")

// globalFlags are the flags every command shares.
type globalFlags struct {
	db         string
	pgSchema   string
	vector     string
	embedder   string
	embedModel string
	json       bool
	write      bool
	noProgress bool
	// findPgvector: the command uses the vector index and --vector was not
	// given, so a PostgreSQL --db lends its pgvector tables when it has them.
	findPgvector bool
}

// app holds the streams and flags of one invocation.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	flags          globalFlags
}

func newApp(stdin io.Reader, stdout, stderr io.Writer) *app {
	return &app{stdin: stdin, stdout: stdout, stderr: stderr}
}

// rootCommand builds the command tree.
func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "agentmem",
		Short: "Inspect, search, export, import and migrate agentmem conversation memory",
		Long: `agentmem works on the memory an agent stores with github.com/agentmem/agentmem:
threads of messages owned by resources (users), working memory, observations
and the semantic-recall index.

Connect with --db: a SQLite file (default ./memory.db) or a postgres:// DSN;
AGENTMEM_DB sets the default. Semantic search and reindexing also use
--vector (a local index file, a postgres:// DSN with pgvector, or a Weaviate
address http://host:port; without it, memory.vectors beside memory.db when it
exists) and an embedder (--embedder hash, the offline default, or the URL of
an OpenAI-compatible /v1/embeddings endpoint with --embed-model).

Commands only read unless given --write. Output is aligned text; --json
prints JSON for scripts. Long work shows a progress bar (on a terminal),
stops cleanly on Ctrl-C and resumes when run again.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(a.stdin)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return clierr.Usage("%v", err) })
	a.addGlobalFlags(root)
	root.AddGroup(
		&cobra.Group{ID: "inspect", Title: "Inspect:"},
		&cobra.Group{ID: "maintain", Title: "Maintain (need --write):"},
		&cobra.Group{ID: "move", Title: "Export, import and migrate:"},
	)
	for _, c := range []*cobra.Command{a.threadsCmd(), a.showCmd(), a.promptCmd(), a.searchCmd(), a.statsCmd(), a.workingMemoryCmd(), a.serveCmd()} {
		c.GroupID = "inspect"
		root.AddCommand(c)
	}
	for _, c := range []*cobra.Command{a.compactCmd(), a.reindexCmd(), a.deleteThreadCmd(), a.moveThreadCmd(), a.maintainCmd(),
		a.clearObservationsCmd(), a.observeNowCmd(false), a.observeNowCmd(true)} {
		c.GroupID = "maintain"
		root.AddCommand(c)
	}
	for _, c := range []*cobra.Command{a.exportCmd(), a.importCmd()} {
		c.GroupID = "move"
		root.AddCommand(c)
	}
	return root
}

func (a *app) addGlobalFlags(root *cobra.Command) {
	f := root.PersistentFlags()
	db := os.Getenv("AGENTMEM_DB")
	if db == "" {
		db = defaultDB
	}
	f.StringVar(&a.flags.db, "db", db, "SQLite file or postgres:// DSN (env AGENTMEM_DB)")
	f.StringVar(&a.flags.pgSchema, "pg-schema", "public", "PostgreSQL schema holding agentmem's tables")
	f.StringVar(&a.flags.vector, "vector", os.Getenv("AGENTMEM_VECTOR"), "semantic-recall index: a local index file, a PostgreSQL database postgres://… with pgvector (tables in --pg-schema; the same DSN as --db shares its connections), or a Weaviate address http://host:port[?grpc=host:port&prefix=ClassPrefix&vectorizer=text2vec-...] (vectorizer: Weaviate embeds itself, no --embedder; env AGENTMEM_VECTOR)")
	f.StringVar(&a.flags.embedder, "embedder", envOr("AGENTMEM_EMBEDDER", "hash"), "\"hash\" (offline) or the base URL of an OpenAI-compatible embeddings API, e.g. http://localhost:11434/v1 (env AGENTMEM_EMBEDDER; key in AGENTMEM_EMBEDDER_KEY)")
	f.StringVar(&a.flags.embedModel, "embed-model", os.Getenv("AGENTMEM_EMBED_MODEL"), "embedding model name for a URL --embedder (env AGENTMEM_EMBED_MODEL)")
	f.BoolVar(&a.flags.json, "json", false, "print JSON instead of aligned text")
	f.BoolVar(&a.flags.write, "write", false, "allow commands that change memory")
	f.BoolVar(&a.flags.noProgress, "no-progress", false, "never draw progress bars")
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// requireWrite fails with ErrReadOnly unless --write was given.
func (a *app) requireWrite() error {
	if !a.flags.write {
		return ErrReadOnly.New("")
	}
	return nil
}

func isUsage(err error) bool {
	var ce *memerr.Error
	return errors.As(err, &ce) && (ce.Code == clierr.CodeUsage || ce.Code == CodeReadOnly)
}

// commandName is the command's path without the program name, which the
// error line already starts with ("wm set", "show").
func commandName(cmd *cobra.Command) string {
	if !cmd.HasParent() {
		return cmd.Name()
	}
	return strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
}

// exactArgs is cobra.ExactArgs reporting a usage error.
func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.ExactArgs(n)(cmd, args); err != nil {
			return clierr.Usage("%s: %v", commandName(cmd), err)
		}
		return nil
	}
}

// rangeArgs is cobra.RangeArgs reporting a usage error.
func rangeArgs(lo, hi int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := cobra.RangeArgs(lo, hi)(cmd, args); err != nil {
			return clierr.Usage("%s: %v", commandName(cmd), err)
		}
		return nil
	}
}
