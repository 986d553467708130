package charts

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/dashlab/dashlab/internal/safeio"

	"github.com/dashlab/dashlab/summary"
)

// Page builds a standalone, self-contained HTML page: a title, then sections of prose,
// charts and tables, with the ECharts library inlined once (only when the page has a
// chart) and nothing loaded from the network. Methods chain; the first error (a chart
// that fails to render, a duplicate chart id) is kept and returned by Bytes and WriteFile.
//
//	p := charts.NewPage("DASH reproduction")
//	p.Section("Figure 9", "Throughput normalized to RelayOnly.").Chart(bar).Table("Figure 9 checks", rows)
//	err := p.WriteFile("report/index.html")
type Page struct {
	title    string
	intro    []string
	sections []*section
	ids      map[string]bool
	charts   int
	err      error
}

type section struct {
	heading, anchor string
	body            []template.HTML
}

// NewPage starts a page; intro paragraphs (plain text) go under the title.
func NewPage(title string, intro ...string) *Page {
	return &Page{title: title, intro: intro, ids: map[string]bool{}}
}

var anchorBad = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-z0-9]+`) })

// Section starts a new section with a heading and optional plain-text paragraphs; what
// is added next goes into it.
func (p *Page) Section(heading string, paragraphs ...string) *Page {
	a := strings.Trim(anchorBad().ReplaceAllString(strings.ToLower(heading), "-"), "-")
	if a == "" {
		a = "section"
	}
	for base, n := a, 2; p.hasAnchor(a); n++ {
		a = fmt.Sprintf("%s-%d", base, n)
	}
	p.sections = append(p.sections, &section{heading: heading, anchor: a})
	return p.Text(paragraphs...)
}

func (p *Page) hasAnchor(a string) bool {
	for _, s := range p.sections {
		if s.anchor == a {
			return true
		}
	}
	return false
}

func (p *Page) add(h template.HTML) *Page {
	if len(p.sections) == 0 {
		p.sections = append(p.sections, &section{})
	}
	s := p.sections[len(p.sections)-1]
	s.body = append(s.body, h)
	return p
}

// Text adds plain-text paragraphs (HTML-escaped).
func (p *Page) Text(paragraphs ...string) *Page {
	for _, t := range paragraphs {
		p.add(template.HTML("<p>" + template.HTMLEscapeString(t) + "</p>"))
	}
	return p
}

// HTML adds trusted HTML as it is (a table from Table, a list, a figure caption).
func (p *Page) HTML(h template.HTML) *Page { return p.add(h) }

// Table adds a "paper vs simulated" table of judged rows (see Table).
func (p *Page) Table(caption string, rows []summary.Row) *Page { return p.add(Table(caption, rows)) }

var snippetID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^<div class="dashlab-chart" id="([^"]+)"`) })

// Chart renders c (see Snippet) and adds it.
func (p *Page) Chart(c Chart) *Page {
	if p.err != nil {
		return p
	}
	h, err := Snippet(c)
	if err != nil {
		p.err = err
		return p
	}
	if m := snippetID().FindStringSubmatch(string(h)); m != nil {
		if p.ids[m[1]] {
			p.err = fmt.Errorf("charts: two charts with id %q on page %q", m[1], p.title)
			return p
		}
		p.ids[m[1]] = true
	}
	p.charts++
	return p.add(h)
}

// Err returns the first error met while building the page.
func (p *Page) Err() error { return p.err }

// pageTemplate is parsed on first use: a process that writes no page pays
// nothing for it at start-up.
var pageTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<title>{{.Title}}</title>
<style>
body { margin: 0 auto; max-width: 1200px; padding: 16px 24px 48px; background: #ffffff; color: #202124;
  font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; font-size: 15px; line-height: 1.5; }
h1 { font-size: 26px; margin: 8px 0 4px; } h2 { font-size: 20px; margin: 32px 0 8px; border-bottom: 1px solid #dadce0; }
nav ul { padding-left: 20px; } a { color: #1a73e8; }
.dashlab-chart { max-width: 100%; }
.dashlab-paper-table { width: 100%; } .dashlab-paper-table td:last-child { min-width: 260px; }
footer { margin-top: 40px; color: #5f6368; font-size: 12px; }
{{.Print}}
</style>
{{if .Library}}{{.Library}}{{end}}
</head>
<body>
<h1>{{.Title}}</h1>
{{range .Intro}}<p>{{.}}</p>
{{end}}{{if .TOC}}<nav><ul>{{range .Sections}}{{if .Heading}}<li><a href="#{{.Anchor}}">{{.Heading}}</a></li>{{end}}{{end}}</ul></nav>
{{end}}{{range .Sections}}<section{{if .Anchor}} id="{{.Anchor}}"{{end}}>
{{if .Heading}}<h2>{{.Heading}}</h2>
{{end}}{{range .Body}}{{.}}
{{end}}</section>
{{end}}<footer>Self-contained page: charts drawn with Apache ECharts {{.Version}} (Apache-2.0), inlined; nothing is loaded from the network.</footer>
</body>
</html>
`))
})

// Bytes renders the page.
func (p *Page) Bytes() (out []byte, err error) {
	if p.err != nil {
		return nil, p.err
	}
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("charts: rendering page %q failed: %v", p.title, r)
		}
	}()
	type sec struct {
		Heading, Anchor string
		Body            []template.HTML
	}
	data := struct {
		Title, Version string
		Print          template.CSS
		Intro          []string
		Library        template.HTML
		TOC            bool
		Sections       []sec
	}{Title: p.title, Version: LibraryVersion, Print: template.CSS(PrintStyle), Intro: p.intro}
	if p.charts > 0 {
		data.Library = LibraryHTML()
	}
	headings := 0
	for _, s := range p.sections {
		data.Sections = append(data.Sections, sec{s.heading, s.anchor, s.body})
		if s.heading != "" {
			headings++
		}
	}
	data.TOC = headings >= 2
	var buf bytes.Buffer
	if err := pageTemplate().Execute(&buf, data); err != nil {
		return nil, fmt.Errorf("charts: rendering page %q: %w", p.title, err)
	}
	return buf.Bytes(), nil
}

// WriteFile renders the page and writes it to path, creating its directory.
func (p *Page) WriteFile(path string) error {
	b, err := p.Bytes()
	if err != nil {
		return err
	}
	if path == "" {
		return errors.New("charts: WriteFile with an empty path")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return safeio.WriteFile(path, b, 0o644)
}
