package charts

import (
	"fmt"
	"html/template"
	"strings"

	"github.com/dashlab/dashlab/summary"
)

// Figure is one of the paper's figures or tables drawn from engine results: a title, a
// caption, its charts, its HTML tables, the "paper vs simulated" rows of the numbers the
// paper publishes for it, and notes (caveats). The figure functions (Fig1, Table2,
// GPUTiming, Fig9a, Fig9b, ...) return one; a notebook shows it with
//
//	show(fig.HTML())
//
// and a page adds it with Page.Figure. A figure never carries the ECharts library.
type Figure struct {
	// ID prefixes the ids of the figure's charts ("fig9a"); unique per page or notebook.
	ID      string
	Title   string
	Caption string // plain text, under the title
	Charts  []Chart
	Tables  []template.HTML // after the charts (from Table, PaperTable, HTMLTable, ...)
	// Rows compares the figure's published numbers with the engine's, shown as a table
	// after the charts and tables.
	Rows  []summary.Row
	Notes []string // plain text, last: caveats, what the engine does differently
}

const (
	figTitleStyle   = `font-family:-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;font-size:17px;font-weight:600;color:#202124;margin:16px 0 4px`
	figCaptionStyle = `font-family:-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;font-size:14px;color:#3c4043;margin:4px 0 8px;max-width:960px`
	figNoteStyle    = `font-family:-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;font-size:13px;color:#5f6368;margin:4px 0;max-width:960px`
)

// parts renders the figure's body (without the title): caption, charts, tables, rows,
// notes, in that order.
func (f Figure) parts(withTitle bool) ([]template.HTML, []string, error) {
	esc := template.HTMLEscapeString
	var out []template.HTML
	var ids []string
	if withTitle && f.Title != "" {
		out = append(out, template.HTML(fmt.Sprintf(`<div class="dashlab-figure-title" style="%s">%s</div>`, figTitleStyle, esc(f.Title))))
	}
	if f.Caption != "" {
		out = append(out, template.HTML(fmt.Sprintf(`<p style="%s">%s</p>`, figCaptionStyle, esc(f.Caption))))
	}
	for i, c := range f.Charts {
		h, err := Snippet(c)
		if err != nil {
			return nil, nil, fmt.Errorf("figure %q, chart %d: %w", f.ID, i+1, err)
		}
		if m := snippetID().FindStringSubmatch(string(h)); m != nil {
			ids = append(ids, m[1])
		}
		out = append(out, h)
	}
	out = append(out, f.Tables...)
	if len(f.Rows) > 0 {
		out = append(out, Table(f.Title+": paper vs simulated", f.Rows))
	}
	for _, n := range f.Notes {
		out = append(out, template.HTML(fmt.Sprintf(`<p style="%s">%s</p>`, figNoteStyle, esc(n))))
	}
	return out, ids, nil
}

// HTML renders the figure for a notebook: title, caption, charts (without the library;
// see LibraryHTML), tables, rows and notes.
func (f Figure) HTML() (template.HTML, error) {
	parts, ids, err := f.parts(true)
	if err != nil {
		return "", err
	}
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			return "", fmt.Errorf("figure %q: two charts with id %q", f.ID, id)
		}
		seen[id] = true
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<div class="dashlab-figure" id="%s" style="background:#ffffff;color:#202124;padding:4px 0">`, template.HTMLEscapeString(SanitizeID(f.ID)+"_figure"))
	for _, p := range parts {
		b.WriteString(string(p))
		b.WriteString("\n")
	}
	b.WriteString("</div>")
	return template.HTML(b.String()), nil
}

// Parts renders the figure for a notebook as a list of outputs, in order: its title
// and caption, each chart (which Bundles makes a bundle with its static image), its
// tables, rows and notes. Unlike HTML, no element wraps them, so that each chart can be
// an output of its own.
func (f Figure) Parts() ([]template.HTML, error) {
	parts, _, err := f.parts(true)
	return parts, err
}

// Figure adds a figure to the page as a new section headed by its title.
func (p *Page) Figure(f Figure) *Page {
	if p.err != nil {
		return p
	}
	parts, ids, err := f.parts(false)
	if err != nil {
		p.err = err
		return p
	}
	for _, id := range ids {
		if p.ids[id] {
			p.err = fmt.Errorf("charts: two charts with id %q on page %q", id, p.title)
			return p
		}
		p.ids[id] = true
	}
	title := f.Title
	if title == "" {
		title = f.ID
	}
	p.Section(title)
	p.charts += len(ids)
	for _, h := range parts {
		p.add(h)
	}
	return p
}

// ChartFigure wraps one chart (and its error, so that a builder's result can be passed
// straight in) as a figure with a caption.
func ChartFigure(id, title, caption string, c Chart, err error) (Figure, error) {
	if err != nil {
		return Figure{}, err
	}
	return Figure{ID: id, Title: title, Caption: caption, Charts: []Chart{c}}, nil
}
