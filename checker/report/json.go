package report

import (
	"encoding/json"
	"io"
)

// WriteJSON writes the whole report, indented.
func WriteJSON(w io.Writer, r *Report) error {
	r = r.cleaned()
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
