package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/tmc/langchaingo/llms/openai"

	"github.com/agentmem/agentmem/cmd/agentmem/internal/clierr"
	"github.com/agentmem/agentmem/cmd/agentmem/internal/export"
	"github.com/agentmem/agentmem/core"
	"github.com/agentmem/agentmem/core/store"
	agentlc "github.com/agentmem/agentmem/langchaingo"
)

func (a *app) clearObservationsCmd() *cobra.Command {
	var thread, resource string
	cmd := &cobra.Command{
		Use:   "clear-observations (--thread THREAD | --resource RESOURCE)",
		Short: "Reset observational memory of a thread or resource (needs --write)",
		Long: `Reset the observational-memory record of a thread (thread scope) or of a
resource (resource scope): its observations, its archived generations and
how far the conversation was observed. The messages stay; they count as
unobserved again, so a turn loads them and the observer observes them anew
once they pass the threshold. An agent observing at the same time loses its
write (the record's version moves on) and starts over from the cleared record.`,
		Example: `  agentmem --write clear-observations --thread thread-123
  agentmem --write clear-observations --resource user-42`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			scope, id, err := wmTarget{thread: thread, resource: resource}.scope()
			if err != nil {
				return err
			}
			if err := a.requireWrite(); err != nil {
				return err
			}
			return a.withConn(cmd, func(ctx context.Context, c *connection) error {
				return a.clearObservations(ctx, c, store.ObservationKey(scope, id, id), scope, id)
			})
		},
	}
	cmd.Flags().StringVar(&thread, "thread", "", "the thread-scoped record of this thread")
	cmd.Flags().StringVar(&resource, "resource", "", "the resource-scoped record of this resource")
	return cmd
}

func (a *app) clearObservations(ctx context.Context, c *connection, key string, scope store.Scope, id string) error {
	cur, err := c.Store.GetObservations(ctx, key)
	if err != nil {
		return err
	}
	gens, err := c.Store.ListObservationGenerations(ctx, key)
	if err != nil {
		return err
	}
	rec, err := c.Store.ClearObservations(ctx, key)
	if err != nil {
		return err
	}
	if a.flags.json {
		return writeJSON(a.stdout, map[string]any{"key": key, "clearedTokens": cur.ObservationTokens,
			"clearedGenerations": len(gens), "version": rec.Version})
	}
	if cur.Version == 0 {
		_, err = fmt.Fprintf(a.stdout, "(no observations stored for %s %s)\n", scope, id)
		return err
	}
	_, err = fmt.Fprintf(a.stdout, "cleared the observations of %s %s (%d tokens, %d archived generations)\n",
		scope, id, cur.ObservationTokens, len(gens))
	return err
}

// modelFlags name the OpenAI-compatible chat model that observe and reflect call.
type modelFlags struct{ url, name string }

func (f *modelFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.url, "model-url", os.Getenv("AGENTMEM_MODEL_URL"), "base URL of an OpenAI-compatible chat API, e.g. http://localhost:11434/v1 (env AGENTMEM_MODEL_URL; key in AGENTMEM_MODEL_KEY)")
	cmd.Flags().StringVar(&f.name, "model", os.Getenv("AGENTMEM_MODEL"), "chat model name (env AGENTMEM_MODEL)")
}

// model opens the chat model; nothing is sent until it is called.
func (f modelFlags) model() (core.Model, error) {
	if f.url == "" || f.name == "" {
		return nil, clierr.Usage("give the observer's chat model: --model-url URL and --model NAME")
	}
	key := os.Getenv("AGENTMEM_MODEL_KEY")
	if key == "" {
		key = "none" // local servers ignore it; the client refuses an empty key
	}
	llm, err := openai.New(openai.WithBaseURL(f.url), openai.WithModel(f.name), openai.WithToken(key))
	if err != nil {
		return nil, clierr.Usage("--model-url: %v", err)
	}
	return agentlc.Model(llm), nil
}

// observeNowCmd is "observe" (Memory.ObserveNow) or "reflect" (Memory.ReflectNow).
func (a *app) observeNowCmd(reflect bool) *cobra.Command {
	var (
		m     modelFlags
		scope string
	)
	name, short, long := "observe", "Observe a thread's unobserved messages now (needs --write)",
		`Run the observer over every unobserved message of the thread now, whatever
their tokens, then reflect when the observations pass the reflection
threshold (40,000 tokens). With --scope resource, the record shared by the
threads of the thread's resource is observed.`
	if reflect {
		name, short, long = "reflect", "Condense a thread's observations into a new generation now (needs --write)",
			`Run the reflector over the record's observations now, whatever their
tokens; the previous generation is archived. With --scope resource, the
record shared by the threads of the thread's resource is reflected.`
	}
	cmd := &cobra.Command{
		Use: name + " THREAD", Short: short, Long: long,
		Example:           "  agentmem --write " + name + " thread-123 --model-url http://localhost:11434/v1 --model qwen3",
		Args:              exactArgs(1),
		ValidArgsFunction: a.completeThreads,
		RunE: func(cmd *cobra.Command, args []string) error {
			if scope != string(store.ScopeThread) && scope != string(store.ScopeResource) {
				return clierr.Usage("--scope must be thread or resource, got %q", scope)
			}
			if err := a.requireWrite(); err != nil {
				return err
			}
			model, err := m.model()
			if err != nil {
				return err
			}
			return a.withConn(cmd, func(ctx context.Context, c *connection) error {
				th, err := c.Store.GetThread(ctx, args[0])
				if err != nil {
					return err
				}
				cfg := &core.Config{ObservationalMemory: &core.ObservationalMemoryConfig{Model: model, Scope: store.Scope(scope)}}
				call := c.Memory.ObserveNow
				if reflect {
					call = c.Memory.ReflectNow
				}
				rec, err := call(ctx, th.ID, th.ResourceID, cfg)
				if err != nil {
					return err
				}
				if a.flags.json {
					return writeJSON(a.stdout, export.NewObservationDoc(rec))
				}
				_, err = fmt.Fprintf(a.stdout, "observations of %s: generation %d, %d tokens, observed up to %s\n",
					rec.Key, rec.Generation, rec.ObservationTokens, rec.LastObservedAt.UTC().Format("2006-01-02 15:04:05"))
				return err
			})
		},
	}
	m.add(cmd)
	cmd.Flags().StringVar(&scope, "scope", string(store.ScopeThread), "thread: the thread's record; resource: the record of its resource")
	return cmd
}
