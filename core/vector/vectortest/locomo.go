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

	"github.com/agentmem/agentmem/internal/testenv"
)

// LoCoMoTurn is one dialog turn; ID is its dialog id ("D3:7").
type LoCoMoTurn struct {
	ID      string    // dialog id, e.g. "D3:7"
	Speaker string    // speaker's name
	Text    string    // what was said
	Session string    // "session_<n>"
	At      time.Time // session time plus one second per turn
	Images  []string  // URLs of images shared with the turn
	Caption string    // caption of the shared image (BLIP), "" if none
}

// LoCoMoQuestion is one QA item with its evidence dialog ids.
type LoCoMoQuestion struct {
	Question string   // the question text
	Evidence []string // dialog ids holding the answer
	Category int      // 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop
}

// LoCoMoConversation is one LoCoMo sample: its turns in order and questions.
type LoCoMoConversation struct {
	SampleID  string           // e.g. "conv-26"; the resource of its records
	Turns     []LoCoMoTurn     // every turn, in order
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

// LoCoMoTexts returns the text of every turn and every question of the
// data set at LoCoMoPath (loaded as LoadLoCoMo does), for benchmark corpora.
func LoCoMoTexts(t testing.TB) (turns, questions []string) {
	t.Helper()
	for _, c := range LoadLoCoMo(t) {
		for _, tr := range c.Turns {
			turns = append(turns, tr.Text)
		}
		for _, q := range c.Questions {
			questions = append(questions, q.Question)
		}
	}
	return turns, questions
}

// LoadLoCoMo loads the data set at LoCoMoPath. When the file is absent it
// skips the test, saying where the file was looked for and how to give it;
// it fails instead when the file was asked for (AGENTMEM_LOCOMO set, as
// scripts/test does) or missing parts must fail (AGENTMEM_REQUIRE_SERVERS=1).
// Under -short the harness is skipped unless AGENTMEM_REQUIRE_SERVERS=1.
func LoadLoCoMo(t testing.TB) []LoCoMoConversation {
	t.Helper()
	strict := os.Getenv("AGENTMEM_LOCOMO") != "" || testenv.RequireServers()
	return loadLoCoMoAt(t, LoCoMoPath(), strict)
}

func loadLoCoMoAt(t testing.TB, path string, strict bool) []LoCoMoConversation {
	t.Helper()
	raw, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		msg := fmt.Sprintf("LoCoMo data set not found at %s: the retrieval evaluation needs locomo-dev.json, "+
			"which is not part of the repository (set AGENTMEM_LOCOMO to its path)", path)
		if strict {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	if err != nil {
		t.Fatal(err)
	}
	if testing.Short() && !testenv.RequireServers() {
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
			var turns []struct {
				Speaker string   `json:"speaker"`
				Text    string   `json:"text"`
				DiaID   string   `json:"dia_id"`
				Images  []string `json:"img_url"`
				Caption string   `json:"blip_caption"`
			}
			if err := json.Unmarshal(s.Conversation[key], &turns); err != nil {
				return nil, fmt.Errorf("%s %s: %w", s.SampleID, key, err)
			}
			var dt string
			_ = json.Unmarshal(s.Conversation[key+"_date_time"], &dt)
			at, err := time.Parse("3:04 pm on 2 January, 2006", dt)
			if err != nil {
				at = time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, n)
			}
			for i, tr := range turns {
				c.Turns = append(c.Turns, LoCoMoTurn{ID: tr.DiaID, Speaker: tr.Speaker, Text: tr.Text, Session: key,
					At: at.Add(time.Duration(i) * time.Second), Images: tr.Images, Caption: tr.Caption})
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
