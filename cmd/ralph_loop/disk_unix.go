//go:build unix

package main

import "syscall"

// freeMB is the space left to an unprivileged user on root's filesystem, in MiB.
func freeMB(root string) (uint64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(root, &st); err != nil {
		return 0, err
	}
	return st.Bavail * uint64(st.Bsize) / (1 << 20), nil
}
