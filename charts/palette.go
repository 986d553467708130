package charts

import (
	"regexp"
	"strings"
	"sync"
)

// systemColors is the one colour per system that every figure uses: DASH blue,
// Compact-DASH light blue, RelayOnly orange, DirectOnly green, as distinct in print as on
// screen.
var systemColors = map[string]string{
	"dash":         "#1a56c4",
	"compact-dash": "#73a7f0",
	"relay-only":   "#f08a24",
	"direct-only":  "#3ba272",
}

// pairSuffix is a pair family member's count ("relay-only-4").
var pairSuffix = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`-[0-9]+$`) })

// SystemColor is the colour every chart draws a system in, keyed by the system's id
// ("relay-only"; a pair family member such as "relay-only-4" takes its family's colour)
// or by the paper's name of it ("RelayOnly", as SystemName gives). It is "" for any
// other name, and the builders then take the next colour of Palette.
func SystemColor(system string) string {
	id := strings.ToLower(system)
	for k := range systemColors {
		if strings.EqualFold(SystemName(k), system) {
			id = k
		}
	}
	if c, ok := systemColors[id]; ok {
		return c
	}
	return systemColors[pairSuffix().ReplaceAllString(id, "")]
}

// seriesColor is the colour of series i named name: the explicit one, else the system's
// colour when the name is a system's, else the i-th colour of Palette.
func seriesColor(i int, name, explicit string) string {
	if explicit != "" {
		return explicit
	}
	if c := SystemColor(name); c != "" {
		return c
	}
	return Palette[i%len(Palette)]
}
