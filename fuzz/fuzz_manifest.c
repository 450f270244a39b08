/*
 * fuzz_manifest.c: manifest_load() on any bytes.
 *
 * The bytes are written as study.yaml into a private temporary directory
 * that also holds traces/rank0.json, so trace globs have something to
 * match; the loaded manifest is walked so that ASan sees every string.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "manifest/manifest.h"
#include "util/diag.h"

static char dir[64], path[96];

static void cleanup(void)
{
	char p[128];
	snprintf(p, sizeof(p), "%s/traces/rank0.json", dir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/traces", dir);
	rmdir(p);
	unlink(path);
	rmdir(dir);
}

static void setup(void)
{
	const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	snprintf(dir, sizeof(dir), "%s/fuzz-manifest.XXXXXX", base);
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		abort();
	}
	char p[128];
	snprintf(p, sizeof(p), "%s/traces", dir);
	mkdir(p, 0777);
	snprintf(p, sizeof(p), "%s/traces/rank0.json", dir);
	FILE *f = fopen(p, "w");
	if (f) {
		fputs("{\"traceEvents\": []}\n", f);
		fclose(f);
	}
	snprintf(path, sizeof(path), "%s/study.yaml", dir);
	atexit(cleanup);
}

static void touch(const char *s)
{
	if (s) {
		volatile size_t n = strlen(s);
		(void)n;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!dir[0])
		setup();
	diag_set_quiet(1);
	FILE *f = fopen(path, "wb");
	if (!f) {
		perror(path);
		abort();
	}
	if (size)
		fwrite(data, 1, size, f);
	fclose(f);
	struct manifest *m;
	if (manifest_load(path, &m) == 0) {
		touch(m->id);
		touch(m->title);
		touch(m->description);
		touch(m->hardware.nvidia_smi);
		touch(m->classify_preset);
		for (size_t i = 0; i < m->nruns; i++) {
			const struct manifest_run *r = &m->runs[i];
			touch(r->id);
			touch(r->label);
			touch(r->strategy);
			touch(r->model.name);
			if (!r->ntraces) {
				fputs("fuzz: manifest run without traces accepted\n", stderr);
				abort();
			}
			for (size_t t = 0; t < r->ntraces; t++)
				touch(r->traces[t]);
		}
		for (size_t i = 0; i < m->nrules; i++) {
			touch(m->rules[i].group);
			touch(m->rules[i].pattern);
		}
		manifest_free(m);
	}
	diag_reset();
	return 0;
}
