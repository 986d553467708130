package sim

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// roundTrip checks that each value is written as its name and read back.
func roundTrip[T interface {
	~uint8
	String() string
}](t *testing.T, values []T) {
	for _, v := range values {
		b, err := json.Marshal(v)
		if err != nil || string(b) != `"`+v.String()+`"` {
			t.Errorf("%d: %s, %v", uint8(v), b, err)
		}
		var back T
		if err := json.Unmarshal(b, &back); err != nil || back != v {
			t.Errorf("%s: decoded %v, %v", v, back, err)
		}
	}
}

func TestEnumNamesRoundTrip(t *testing.T) {
	roundTrip(t, OpClasses())
	roundTrip(t, Routes())
	if len(OpClasses()) != 8 || len(Routes()) != 7 {
		t.Errorf("%d classes, %d routes", len(OpClasses()), len(Routes()))
	}
}

func TestEnumsRefuseUnknownNames(t *testing.T) {
	var c OpClass
	if err := json.Unmarshal([]byte(`"shared_experts"`), &c); err == nil || !strings.Contains(err.Error(), `"shared_experts"`) {
		t.Errorf("unknown class: %v", err)
	}
	var r Route
	if err := json.Unmarshal([]byte(`"teleport"`), &r); err == nil || !strings.Contains(err.Error(), `"teleport"`) {
		t.Errorf("unknown route: %v", err)
	}
	if _, err := json.Marshal(Route(numRoutes)); err == nil {
		t.Error("an out-of-range route was written")
	}
	if _, err := json.Marshal(OpClass(numClasses)); err == nil {
		t.Error("an out-of-range class was written")
	}
	if r, err := ParseRoute("relay"); r != RouteRelay || err != nil {
		t.Errorf("ParseRoute(relay) = %v, %v", r, err)
	}
	if c, err := ParseOpClass("lm_head"); c != ClassLMHead || err != nil {
		t.Errorf("ParseOpClass(lm_head) = %v, %v", c, err)
	}
	if Route(200).String() != "route(200)" || OpClass(200).String() != "class(200)" {
		t.Errorf("out-of-range names %s, %s", Route(200), OpClass(200))
	}
}

func TestRoutePredicates(t *testing.T) {
	for _, r := range Routes() {
		name := r.String()
		if r.IsRead() != (r == RouteHBM || r == RouteDirect || r == RouteRelay) {
			t.Errorf("%s: IsRead %v", name, r.IsRead())
		}
		if r.IsGPUWrite() != strings.HasSuffix(name, "_write") {
			t.Errorf("%s: IsGPUWrite %v", name, r.IsGPUWrite())
		}
		if r.WritesHBF() != (name == "direct_write" || name == "relay_write" || name == "writeback") {
			t.Errorf("%s: WritesHBF %v", name, r.WritesHBF())
		}
	}
}

// A result written as JSON decodes back to the same typed result.
func TestResultJSONRoundTrip(t *testing.T) {
	r := run(t, build(t, "mixtral-8x22b", "dash", 2, 128, 3), Options{Trace: &TraceSpec{Pass: 1, Layer: 0}})
	r.Perf.Wall = 0
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back Result
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r, back) {
		t.Errorf("the result changed through JSON:\n%+v\n%+v", r, back)
	}
	bad := strings.Replace(string(b), `"class":"experts"`, `"class":"expertz"`, 1)
	if err := json.Unmarshal([]byte(bad), &back); err == nil {
		t.Error("a result with an unknown operator class decoded")
	}
}
