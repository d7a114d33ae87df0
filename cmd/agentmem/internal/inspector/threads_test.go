package inspector

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var rowRE = regexp.MustCompile(`<tr class="thread-row" data-id="([^"]+)">`)

func TestThreadList(t *testing.T) {
	eachStore(t, func(t *testing.T, f *fixture) {
		h := f.handler(t, Options{})
		w := get(h, "/")
		wantStatus(t, w, http.StatusOK)
		body := w.Body.String()
		wantContains(t, body, "Order support", "Gift baskets", "Cooking chat", "Billing question", "4 threads")
		// The support thread's row shows its stored message count.
		n := 0
		for _, tr := range supportTurns() {
			n += len(tr.input) + len(tr.answer)
		}
		row := body[strings.Index(body, `data-id="`+f.support.ID+`"`):]
		row = row[:strings.Index(row, "</tr>")]
		wantContains(t, row, `<td class="num msg-count">`+itoa(n)+`</td>`)
		if ids := rowRE.FindAllStringSubmatch(body, -1); len(ids) != 4 || ids[0][1] != f.cooking.ID {
			t.Errorf("rows %v: want 4, most recent activity (the cooking thread) first", ids)
		}
	})
}

func TestThreadListFilters(t *testing.T) {
	eachStore(t, func(t *testing.T, f *fixture) {
		h := f.handler(t, Options{})
		w := get(h, "/?resource=user-789")
		wantStatus(t, w, http.StatusOK)
		if ids := rowRE.FindAllStringSubmatch(w.Body.String(), -1); len(ids) != 1 || ids[0][1] != f.other.ID {
			t.Errorf("resource filter: rows %v, want only %s", ids, f.other.ID)
		}
		w = get(h, "/?q=GIFT")
		wantStatus(t, w, http.StatusOK)
		if ids := rowRE.FindAllStringSubmatch(w.Body.String(), -1); len(ids) != 1 || ids[0][1] != f.gifts.ID {
			t.Errorf("title search: rows %v, want only %s", ids, f.gifts.ID)
		}
		w = get(h, "/?resource=user-456&q=nothing-matches")
		wantStatus(t, w, http.StatusOK)
		wantContains(t, w.Body.String(), "No threads.", "0 threads")
		wantStatus(t, get(h, "/?page=-1"), http.StatusBadRequest)
		wantStatus(t, get(h, "/?page=x"), http.StatusBadRequest)
	})
}

func itoa(n int) string { return strconv.Itoa(n) }
