package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/agentmem/agentmem/cmd/agentmem/internal/clierr"
	"github.com/agentmem/agentmem/cmd/agentmem/internal/importer"
	"github.com/agentmem/agentmem/cmd/agentmem/internal/migrate"
	"github.com/spf13/cobra"
)

// importGCPercent is the garbage collector's target while importing.
const importGCPercent = 400

// importOptions are the flags of import.
type importOptions struct {
	from    string
	source  migrate.Options
	restart bool
	batch   int
}

func (a *app) importCmd() *cobra.Command {
	var o importOptions
	cmd := &cobra.Command{
		Use:   "import (FILE | -) | import --from SOURCE (FILE | DSN)",
		Short: "Import a JSONL export, or migrate from langchaingo or Mastra (needs --write)",
		Long: `Import an "agentmem export" file (JSON Lines; "-" reads standard input), or
migrate another memory with --from:

  langchaingo-sqlite3 FILE   langchaingo's memory/sqlite3 table (default
                             langchaingo_messages): one thread per session
  langchaingo-postgres DSN   langchaingo's PostgreSQL chat history table
                             (memory/alloydb; --table, --schema): one thread
                             per session_id
  mastra FILE|DSN            Mastra's mastra_threads, mastra_messages and
                             mastra_resources tables (@mastra/libsql file or
                             @mastra/pg database): threads, format-2 messages,
                             working memory

langchaingo has no resources: its threads go to --resource (default
"default", the resource the langchaingo adapters use), one per session, with
the ids the adapters' own import of upstream's table would give them. System messages are never stored by agentmem and are skipped;
the summary says what was skipped and why.

Import keeps ids, so running it twice changes nothing. The whole input is
checked first (JSON, record order, ids, and ownership against the target
store): a bad line fails with its line number before anything is written.
Messages are then saved through Memory.SaveMessagesBulk in batches of --batch
(one transaction each; every SaveMessages rule applies; new messages are
written in bulk where the store can), several batches at once.
Ctrl-C stops cleanly; running the same command again resumes after the last
fully imported thread (--restart starts over). With --vector, imported
messages are indexed for semantic recall as they are saved; without it, run
"agentmem --vector ... reindex" afterwards.`,
		Example: `  agentmem --db new.db --write import all.jsonl
  agentmem --write import --from langchaingo-sqlite3 ./chat.db --resource user-42
  agentmem --db postgres://localhost/app --write import --from langchaingo-postgres postgres://localhost/app --table chat_history
  agentmem --write import --from mastra ./mastra.db`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.requireWrite(); err != nil {
				return err
			}
			switch {
			case o.batch < 0:
				return clierr.Usage("--batch must be positive")
			case o.batch == 0:
				o.batch = importer.DefaultBatch
			}
			src, cleanup, err := a.importSource(o, args[0])
			if err != nil {
				return err
			}
			defer cleanup()
			created := a.newSQLiteTarget()
			err = a.withConn(cmd, func(ctx context.Context, c *connection) error {
				return a.runImport(ctx, c, src, o.restart, o.batch)
			})
			var nw notWritten
			if err != nil && created != "" && errors.As(err, &nw) {
				removeSQLite(created)
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.from, "from", "", "migrate from: langchaingo-sqlite3, langchaingo-postgres or mastra")
	f.StringVar(&o.source.Table, "table", "", "langchaingo table name (default langchaingo_messages for sqlite3; required for postgres)")
	f.StringVar(&o.source.Schema, "schema", "public", "PostgreSQL schema of the source tables")
	f.StringVar(&o.source.Resource, "resource", "", "resource of migrated langchaingo threads (default \"default\", as the langchaingo adapters)")
	f.BoolVar(&o.restart, "restart", false, "ignore the progress of an interrupted run")
	f.IntVar(&o.batch, "batch", importer.DefaultBatch, "messages per SaveMessages call, one transaction")
	_ = cmd.RegisterFlagCompletionFunc("from", cobra.FixedCompletions([]string{migrate.FromLangchaingoSQLite, migrate.FromLangchaingoPostgres, migrate.FromMastra}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// importSource is the source of import's argument: an export file, or the
// tables of --from.
func (a *app) importSource(o importOptions, arg string) (*importer.Source, func(), error) {
	if o.from == "" {
		return importer.JSONL(arg, a.stdin)
	}
	src, err := migrate.NewSource(o.from, arg, o.source)
	return src, func() {}, err
}

// importSummary is what import reports.
type importSummary struct {
	Source   string         `json:"source"`
	Unit     string         `json:"-"`
	Records  int            `json:"records"`
	Threads  int            `json:"threads"`
	Imported int64          `json:"threadsImported"`
	Messages int            `json:"messages"`
	Saved    int64          `json:"saved"`
	Dropped  int64          `json:"dropped"`
	Resumed  int            `json:"resumedAfter"`
	Skipped  map[string]int `json:"skipped"`
	Indexed  bool           `json:"indexed"` // saved messages were indexed (--vector)
}

// runImport checks the whole source, then imports what the check kept,
// resuming after the checkpoint of an interrupted run of the same import.
func (a *app) runImport(ctx context.Context, c *connection, src *importer.Source, restart bool, batch int) error {
	if os.Getenv("GOGC") == "" {
		// The import keeps little live (~10 MB: chunks of lines, batches)
		// and allocates a few KB a message: at the default GOGC the
		// collector would run every few thousand messages.
		defer debug.SetGCPercent(debug.SetGCPercent(importGCPercent))
	}
	sp, err := importer.NewSpool()
	if err != nil {
		return notWritten{err}
	}
	defer sp.Close()
	p, err := importer.Check(ctx, src, c.Store, sp)
	if err != nil {
		return notWritten{err}
	}
	return a.importChecked(ctx, c, sp.Replay(src), p, restart, batch)
}

// importChecked imports the checked records of src (planned by p).
func (a *app) importChecked(ctx context.Context, c *connection, src *importer.Source, p importer.Plan, restart bool, batch int) error {
	id := src.Identity
	if id == "" {
		id = src.Name
	}
	cp, st, err := openCheckpoint(restart, "import", id, a.flags.db, a.flags.pgSchema)
	if err != nil {
		return err
	}
	bar := a.newProgress(int64(p.Messages), "import")
	im := &importer.Importer{Memory: c.Memory, Store: c.Store, Batch: batch, Progress: bar.add, Index: c.Vector != nil}
	done, err := im.Run(ctx, src, st.Done)
	bar.done()
	if err != nil {
		if done > st.Done {
			if serr := cp.save(checkpointState{Done: done}); serr != nil {
				return fmt.Errorf("%w (and saving progress failed: %v)", err, serr)
			}
		}
		if importer.Interrupted(err) {
			return fmt.Errorf("import interrupted; %d of %d records done, run the same command to resume: %w", done, p.Records, err)
		}
		return err
	}
	if err := cp.clear(); err != nil {
		return err
	}
	sum := importSummary{Source: src.Name, Unit: src.Unit, Records: p.Records, Threads: p.Threads, Imported: im.Threads.Load(), Messages: p.Messages,
		Saved: im.Saved.Load(), Dropped: im.Dropped.Load(), Resumed: st.Done, Skipped: p.Skipped, Indexed: im.Index}
	return a.printImport(sum)
}

func (a *app) printImport(s importSummary) error {
	if a.flags.json {
		return writeJSON(a.stdout, s)
	}
	fmt.Fprintf(a.stdout, "imported %d threads, %d messages from %s\n", s.Imported, s.Saved, s.Source)
	if s.Resumed > 0 {
		fmt.Fprintf(a.stdout, "resumed after %s %d of an interrupted run\n", s.Unit, s.Resumed)
	}
	if s.Dropped > 0 {
		fmt.Fprintf(a.stdout, "%d messages dropped by SaveMessages (nothing left to store after removing working-memory tool calls and tags)\n", s.Dropped)
	}
	reasons := make([]string, 0, len(s.Skipped))
	for r := range s.Skipped {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	for _, r := range reasons {
		fmt.Fprintf(a.stdout, "skipped %d: %s\n", s.Skipped[r], r)
	}
	if len(reasons) == 0 {
		fmt.Fprintln(a.stdout, "skipped nothing")
	}
	if s.Indexed {
		_, err := fmt.Fprintln(a.stdout, "indexed for semantic recall in --vector")
		return err
	}
	_, err := fmt.Fprintln(a.stdout, "not indexed for semantic recall: run \"agentmem --write --vector ... reindex\"")
	return err
}

// notWritten marks an import error raised before anything was written to the
// target: the check of the whole source failed.
type notWritten struct{ err error }

func (e notWritten) Error() string { return e.err.Error() }
func (e notWritten) Unwrap() error { return e.err }

// newSQLiteTarget returns the path of the SQLite target when the import is
// about to create it, and "" when it exists or is not a plain file path.
func (a *app) newSQLiteTarget() string {
	db := a.flags.db
	if migrate.IsPostgres(db) || strings.HasPrefix(db, "file:") || db == ":memory:" {
		return ""
	}
	if _, err := os.Lstat(db); !errors.Is(err, os.ErrNotExist) {
		return ""
	}
	return db
}

// removeSQLite removes a database file the failed import created, with the
// journal files SQLite keeps beside it, so that a failed import leaves no
// new file behind.
func removeSQLite(path string) {
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		_ = os.Remove(path + suffix)
	}
}
