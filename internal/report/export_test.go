package report

// The pieces of Write, for the tests.
var (
	Find         = find
	WriteText    = writeText
	WriteJSON    = writeJSON
	History      = history
	WriteHistory = writeHistory
)

const MaxLine = maxLine
