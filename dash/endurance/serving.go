package endurance

import (
	"fmt"
	"math"

	"github.com/dashlab/dashlab/dash/unit"
)

// FromServing measures R_HBF from continuous-batching serving: the
// system's backlogged (saturation) request rate times the KV bytes each
// request writes into HBF (its prompt's KV: prefill KV is placed in HBF,
// decode KV in HBM while it fits). kvCapacity is C_KV; wa and waSource
// are A_W and where it came from; source describes the serving run.
func FromServing(saturationRPS float64, hbfBytesPerRequest, kvCapacity unit.Bytes, wa float64, waSource, source string) (Measurement, error) {
	if !(saturationRPS > 0) || math.IsInf(saturationRPS, 0) {
		return Measurement{}, fmt.Errorf("saturation rate %g req/s: must be positive and finite", saturationRPS)
	}
	if hbfBytesPerRequest < 0 {
		return Measurement{}, fmt.Errorf("HBF bytes per request %v: must not be negative", hbfBytesPerRequest)
	}
	return Measurement{
		WriteRate: unit.BytesPerSecond(saturationRPS * float64(hbfBytesPerRequest)),
		WriteRateSource: fmt.Sprintf("%s: backlogged %.4g req/s x %v of prompt KV written to HBF per request",
			source, saturationRPS, hbfBytesPerRequest),
		KVCapacity:         kvCapacity,
		WriteAmplification: wa,
		WASource:           waSource,
	}, nil
}

// Utilization is u at a serving load: the offered request rate over the
// system's backlogged rate, in (0, 1].
func Utilization(offeredRPS, saturationRPS float64) (float64, error) {
	u := offeredRPS / saturationRPS
	if !(u > 0 && u <= 1) {
		return 0, fmt.Errorf("offered %g req/s against a backlogged %g req/s: utilisation %g is not in (0, 1]", offeredRPS, saturationRPS, u)
	}
	return u, nil
}
