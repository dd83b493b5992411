package main

import "golang.org/x/sys/windows"

// freeMB is the space left to this user on root's volume, in MiB.
func freeMB(root string) (uint64, error) {
	p, err := windows.UTF16PtrFromString(root)
	if err != nil {
		return 0, err
	}
	var avail, total, free uint64
	if err := windows.GetDiskFreeSpaceEx(p, &avail, &total, &free); err != nil {
		return 0, err
	}
	return avail / (1 << 20), nil
}
