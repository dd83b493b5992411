package main

import (
	"io/fs"
	"path/filepath"
	"strings"
)

// sameDevice reports whether a and b are on the same volume.
func sameDevice(a, b string) bool {
	return strings.EqualFold(filepath.VolumeName(a), filepath.VolumeName(b))
}

// ownedByMe: Windows keeps no owner uid in a FileInfo; a user's folders
// are theirs by their ACLs.
func ownedByMe(fs.FileInfo) bool { return true }

// pidGone: Windows is not asked (the sandbox's identity folders of a
// killed run are left to the system's temporary folder cleanup).
func pidGone(int) bool { return false }
