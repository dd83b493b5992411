package engine

// Waits the tests check.
var IdleWait = idleWait

const SkipWindow = skipWindow
