/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kvmprobe - stand-in program for the kvmbench VM testbed.
 *
 * Opens /dev/kvm, asks for the API version and a few capabilities, tries to
 * create (and immediately drop) a VM, prints a one-line summary and writes the
 * same facts as a small JSON object to the file given as argv[1] (default
 * "kvmprobe.json").  It is built as an ordinary dynamically linked executable
 * on purpose, so that the testbed's copying of shared libraries is exercised.
 *
 * Exit status: 0 if /dev/kvm answered with API version 12 and a VM could be
 * created, 1 otherwise (the JSON file is written in both cases), 2 if the JSON
 * file could not be written.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/utsname.h>
#include <unistd.h>

static int check_cap(int kvm_fd, int cap)
{
	if (kvm_fd < 0)
		return -1;
	return ioctl(kvm_fd, KVM_CHECK_EXTENSION, cap);
}

int main(int argc, char **argv)
{
	const char *out_path = argc > 1 ? argv[1] : "kvmprobe.json";
	const char *open_error = "";
	struct utsname uts;
	int api_version = -1;
	int mmap_size = -1;
	int vm_ok = 0;
	int kvm_fd;
	FILE *out;

	if (uname(&uts) != 0)
		memset(&uts, 0, sizeof(uts));

	kvm_fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm_fd < 0) {
		open_error = strerror(errno);
	} else {
		api_version = ioctl(kvm_fd, KVM_GET_API_VERSION, 0);
		mmap_size = ioctl(kvm_fd, KVM_GET_VCPU_MMAP_SIZE, 0);
		int vm_fd = ioctl(kvm_fd, KVM_CREATE_VM, 0);

		if (vm_fd >= 0) {
			vm_ok = 1;
			close(vm_fd);
		}
	}

	out = fopen(out_path, "w");
	if (out == NULL) {
		fprintf(stderr, "kvmprobe: cannot write %s: %s\n", out_path,
			strerror(errno));
		return 2;
	}
	/* open_error comes from strerror(): no characters that need escaping. */
	fprintf(out,
		"{\n"
		"  \"program\": \"kvmprobe\",\n"
		"  \"kernel_release\": \"%s\",\n"
		"  \"dev_kvm_open\": %s,\n"
		"  \"open_error\": \"%s\",\n"
		"  \"api_version\": %d,\n"
		"  \"vcpu_mmap_size\": %d,\n"
		"  \"cap_nr_vcpus\": %d,\n"
		"  \"cap_max_vcpus\": %d,\n"
		"  \"cap_irqchip\": %d,\n"
		"  \"create_vm\": %s\n"
		"}\n",
		uts.release, kvm_fd >= 0 ? "true" : "false", open_error,
		api_version, mmap_size, check_cap(kvm_fd, KVM_CAP_NR_VCPUS),
		check_cap(kvm_fd, KVM_CAP_MAX_VCPUS),
		check_cap(kvm_fd, KVM_CAP_IRQCHIP), vm_ok ? "true" : "false");
	if (fclose(out) != 0) {
		fprintf(stderr, "kvmprobe: error writing %s\n", out_path);
		return 2;
	}

	printf("kvmprobe: /dev/kvm %s, KVM_GET_API_VERSION=%d, KVM_CREATE_VM %s\n",
	       kvm_fd >= 0 ? "opened" : open_error, api_version,
	       vm_ok ? "ok" : "failed");
	if (kvm_fd >= 0)
		close(kvm_fd);
	return (api_version == KVM_API_VERSION && vm_ok) ? 0 : 1;
}
