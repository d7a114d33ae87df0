package vectortest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/core"
)

// LoCoMoTurn is one dialog turn; ID is its dialog id ("D3:7").
type LoCoMoTurn struct {
	ID, Speaker, Text, Session string
	At                         time.Time
}

// LoCoMoQuestion is one QA item with its evidence dialog ids.
type LoCoMoQuestion struct {
	Question string
	Evidence []string
	Category int
}

// LoCoMoConversation is one LoCoMo sample: its turns in order and questions.
type LoCoMoConversation struct {
	SampleID  string
	Turns     []LoCoMoTurn
	Questions []LoCoMoQuestion // categories 1-4 with evidence only
}

// LoCoMoPath returns $AGENTMEM_LOCOMO, else ../shared/data/locomo-dev.json
// relative to the module root (the directory holding go.mod).
func LoCoMoPath() string {
	if p := os.Getenv("AGENTMEM_LOCOMO"); p != "" {
		return p
	}
	dir, _ := os.Getwd()
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(d, "..", "shared", "data", "locomo-dev.json")
		}
		if filepath.Dir(d) == d {
			return "locomo-dev.json"
		}
	}
}

// LoadLoCoMo loads the data set at LoCoMoPath, skipping the test when the
// file is absent (or under -short, unless AGENTMEM_REQUIRE_SERVERS=1).
func LoadLoCoMo(t testing.TB) []LoCoMoConversation {
	t.Helper()
	path := LoCoMoPath()
	raw, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		t.Skipf("LoCoMo data set not found at %s (set AGENTMEM_LOCOMO)", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	if testing.Short() && os.Getenv("AGENTMEM_REQUIRE_SERVERS") != "1" {
		t.Skip("LoCoMo harness skipped with -short")
	}
	convs, err := ParseLoCoMo(raw)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return convs
}

var sessionKey = regexp.MustCompile(`^session_(\d+)$`)

// ParseLoCoMo parses the LoCoMo JSON (a list of samples with "qa" and
// "conversation" holding session_<n> turn lists and session_<n>_date_time).
func ParseLoCoMo(raw []byte) ([]LoCoMoConversation, error) {
	var samples []struct {
		SampleID string `json:"sample_id"`
		QA       []struct {
			Question string   `json:"question"`
			Evidence []string `json:"evidence"`
			Category int      `json:"category"`
		} `json:"qa"`
		Conversation map[string]json.RawMessage `json:"conversation"`
	}
	if err := json.Unmarshal(raw, &samples); err != nil {
		return nil, err
	}
	var out []LoCoMoConversation
	for _, s := range samples {
		c := LoCoMoConversation{SampleID: s.SampleID}
		var sessions []int
		for k := range s.Conversation {
			if m := sessionKey.FindStringSubmatch(k); m != nil {
				n, _ := strconv.Atoi(m[1])
				sessions = append(sessions, n)
			}
		}
		sort.Ints(sessions)
		for _, n := range sessions {
			key := fmt.Sprintf("session_%d", n)
			var turns []struct{ Speaker, Text, DiaID string }
			var dt string
			_ = json.Unmarshal(s.Conversation[key+"_date_time"], &dt)
			var tmp []map[string]any
			if err := json.Unmarshal(s.Conversation[key], &tmp); err != nil {
				return nil, fmt.Errorf("%s %s: %w", s.SampleID, key, err)
			}
			for _, m := range tmp {
				sp, _ := m["speaker"].(string)
				tx, _ := m["text"].(string)
				id, _ := m["dia_id"].(string)
				turns = append(turns, struct{ Speaker, Text, DiaID string }{sp, tx, id})
			}
			at, err := time.Parse("3:04 pm on 2 January, 2006", dt)
			if err != nil {
				at = time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, n)
			}
			for i, tr := range turns {
				c.Turns = append(c.Turns, LoCoMoTurn{ID: tr.DiaID, Speaker: tr.Speaker, Text: tr.Text, Session: key,
					At: at.Add(time.Duration(i) * time.Second)})
			}
		}
		for _, q := range s.QA {
			var ev []string
			for _, e := range q.Evidence { // a few items read "D8:6; D9:17"
				ev = append(ev, strings.FieldsFunc(e, func(r rune) bool { return r == ';' || r == ',' || r == ' ' })...)
			}
			if q.Category >= 1 && q.Category <= 4 && len(ev) > 0 {
				c.Questions = append(c.Questions, LoCoMoQuestion{Question: q.Question, Evidence: ev, Category: q.Category})
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// IndexLoCoMo writes one record per dialog turn: resource = sample id,
// thread = session, message id = dialog id, record id = "<dialog id>#0",
// text = the turn's text (without the speaker's name).
func IndexLoCoMo(h *H, convs []LoCoMoConversation) {
	h.T.Helper()
	for _, c := range convs {
		var recs []core.VectorRecord
		for i, tr := range c.Turns {
			role := core.RoleUser
			if tr.Speaker != c.Turns[0].Speaker {
				role = core.RoleAssistant
			}
			recs = append(recs, core.VectorRecord{ID: tr.ID + "#0", Text: tr.Text, Meta: core.VectorMeta{
				MessageID: tr.ID, ThreadID: tr.Session, ResourceID: c.SampleID, Role: role, CreatedAt: tr.At}})
			if len(recs) == 100 || i == len(c.Turns)-1 {
				h.Upsert(recs...)
				recs = nil
			}
		}
	}
}

// RecallResult is the evidence recall of one search configuration.
type RecallResult struct {
	Store       string  `json:"store"`
	Mode        string  `json:"mode"`
	Alpha       float64 `json:"alpha"`
	TopK        int     `json:"topK"`
	Questions   int     `json:"questions"`
	Evidence    int     `json:"evidence"`
	Recall      float64 `json:"recall"`      // mean over questions of the share of evidence retrieved
	MicroRecall float64 `json:"microRecall"` // share of all evidence ids retrieved
}

// EvalLoCoMo queries every question (TopK 4, resource scope), expands each
// hit by messageRange 1 (the neighbouring turns of its session) and measures
// the share of evidence dialog ids retrieved.
func EvalLoCoMo(h *H, convs []LoCoMoConversation, mode string, alpha float64) RecallResult {
	h.T.Helper()
	res := RecallResult{Mode: mode, Alpha: alpha, TopK: 4}
	found := 0
	for _, c := range convs {
		pos := map[string]int{}
		for i, tr := range c.Turns {
			pos[tr.ID] = i
		}
		for _, q := range c.Questions {
			hits := h.Query(core.VectorQuery{Text: q.Question, TopK: res.TopK, Mode: mode, Alpha: alpha,
				Filter: core.VectorFilter{ResourceID: c.SampleID}})
			got := map[string]bool{}
			for _, hit := range hits {
				i, ok := pos[hit.Meta.MessageID]
				if !ok {
					h.T.Fatalf("hit %s is not a turn of %s", hit.ID, c.SampleID)
				}
				for j := max(i-1, 0); j <= min(i+1, len(c.Turns)-1); j++ {
					if c.Turns[j].Session == c.Turns[i].Session {
						got[c.Turns[j].ID] = true
					}
				}
			}
			n := 0
			for _, e := range q.Evidence {
				if got[e] {
					n++
				}
			}
			res.Questions++
			res.Evidence += len(q.Evidence)
			found += n
			res.Recall += float64(n) / float64(len(q.Evidence))
		}
	}
	if res.Questions > 0 {
		res.Recall /= float64(res.Questions)
		res.MicroRecall = float64(found) / float64(res.Evidence)
	}
	return res
}

// Report logs r and prints it as one machine-readable line
// "LOCOMO_RECALL {json}" on stdout, also appended to $AGENTMEM_LOCOMO_OUT when set.
func Report(t testing.TB, store string, r RecallResult) {
	t.Helper()
	r.Store = store
	b, _ := json.Marshal(r)
	line := "LOCOMO_RECALL " + string(b)
	t.Logf("%s %-6s alpha=%.2f: recall %.3f (micro %.3f) over %d questions", store, r.Mode, r.Alpha, r.Recall, r.MicroRecall, r.Questions)
	fmt.Println(line)
	if p := os.Getenv("AGENTMEM_LOCOMO_OUT"); p != "" {
		if f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			fmt.Fprintln(f, line)
			f.Close()
		}
	}
}
