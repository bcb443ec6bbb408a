/* SPDX-License-Identifier: BSD-3-Clause */
/* A port's counters and a device's node GUID from sysfs (rdx_dev_sysfs.h). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rdx_dev_sysfs.h"

/* A relative path of plain names: nothing outside the port's directory. */
static bool
counter_name_ok(const char *name)
{
	const char *p = name;

	if (name[0] == '\0' || name[0] == '/')
		return false;
	for (; *p != '\0'; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || strchr("_.-/", *p) != NULL))
			return false;
	for (p = name; p != NULL; p = strchr(p, '/')) {
		if (*p == '/')
			p++;
		if (strncmp(p, "..", 2) == 0 && (p[2] == '/' || p[2] == '\0'))
			return false;
		if (*p == '/' || *p == '\0')
			return false;   /* "a//b", "a/" */
	}
	return true;
}

int
rdx_dev_port_counter_read(const char *root, const char *dev, unsigned int port,
			  const char *name, uint64_t *value)
{
	char path[PATH_MAX], buf[32], *end;
	unsigned long long v;
	ssize_t n;
	int fd, err;

	if (dev == NULL || name == NULL || value == NULL || dev[0] == '\0' ||
	    strchr(dev, '/') != NULL || strcmp(dev, "..") == 0 || port == 0 ||
	    !counter_name_ok(name))
		return -EINVAL;
	if (snprintf(path, sizeof(path), "%s/%s/ports/%u/%s", root != NULL ? root : RDX_DEV_SYSFS_IB,
		     dev, port, name) >= (int)sizeof(path))
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	err = errno;
	close(fd);
	if (n < 0)
		return -err;
	buf[n] = '\0';
	if (buf[0] < '0' || buf[0] > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (errno != 0 || (*end != '\0' && *end != '\n'))
		return -EINVAL;
	*value = v;
	return 0;
}

int
rdx_dev_node_guid_read(const char *root, const char *dev, char *guid)
{
	char path[PATH_MAX], buf[32];
	unsigned int i;
	ssize_t n;
	int fd, err;

	if (dev == NULL || guid == NULL || dev[0] == '\0' || strchr(dev, '/') != NULL ||
	    strcmp(dev, "..") == 0)
		return -EINVAL;
	if (snprintf(path, sizeof(path), "%s/%s/node_guid", root != NULL ? root : RDX_DEV_SYSFS_IB,
		     dev) >= (int)sizeof(path))
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	err = errno;
	close(fd);
	if (n < 0)
		return -err;
	buf[n] = '\0';
	if (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	/* xxxx:xxxx:xxxx:xxxx */
	if (n != RDX_DEV_GUID_LEN - 1)
		return -EINVAL;
	for (i = 0; i < RDX_DEV_GUID_LEN - 1; i++)
		if (i % 5 == 4 ? buf[i] != ':' : !isxdigit((unsigned char)buf[i]))
			return -EINVAL;
	memcpy(guid, buf, RDX_DEV_GUID_LEN);
	return 0;
}
