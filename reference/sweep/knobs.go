package sweep

// legacyKnobs is the shape of the knobs section sweep specs had before
// every knob became an override path (knobs.page_size is now
// overrides.hbf.page_size, knobs.link_bandwidth overrides.link.usable,
// knobs.reading overrides.hbf.reading). Its zero value stays in the plan's
// fingerprint so that the point keys of sweeps without it did not change:
// files written before still resume and merge.
type legacyKnobs struct {
	PageSize      int64
	LinkBandwidth float64
	Reading       string
}
