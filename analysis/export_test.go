package analysis

// For the external tests (package analysis_test, which may import drivers
// and so the formats).
var NaiveFacts = naiveFacts

const (
	MaxResultText = maxResultText
	LimitWarning  = limitWarning
)
