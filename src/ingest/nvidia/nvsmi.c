/*
 * nvsmi.c: `nvidia-smi -q -x` XML into GPU hardware descriptions.
 *
 * The XML is parsed with libxml2 from memory, without loading the DTD the
 * DOCTYPE names (nvsmi_device_v11.dtd ... v13.dtd: nvidia-smi never ships
 * it) and without network access or entity expansion. Every DTD version
 * and the files without one keep the fields we read at the same paths under
 * each <gpu>: product_name, uuid, pci/pci_bus_id, fb_memory_usage/total,
 * max_clocks/{graphics,sm,mem}_clock, the power limit (v12 and later in
 * gpu_power_readings/current_power_limit, before in power_readings/
 * power_limit) and pci/pci_gpu_link_info/{pcie_gen,link_widths}. Driver and
 * CUDA versions are the log's own. "N/A" and other text that is not a
 * number leave a field unknown.
 */
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "ingest/ingest.h"
#include "util/diag.h"

static int nvsmi_detect(const char *head, size_t n)
{
	/*
	 * The document type counts as well as the root element: a DTD inside
	 * the file (or comments) can push the element past the head, and the
	 * file was then "not a Kineto JSON trace".
	 */
	static const char *const tags[] = {"<nvidia_smi_log", "<!DOCTYPE nvidia_smi_log"};
	for (size_t k = 0; k < 2; k++) {
		size_t m = strlen(tags[k]);
		for (size_t i = 0; i + m <= n; i++)
			if (!memcmp(head + i, tags[k], m))
				return 1;
	}
	return 0;
}

/* The first child element of n named name, or NULL. */
static xmlNode *child(xmlNode *n, const char *name)
{
	for (xmlNode *c = n ? n->children : NULL; c; c = c->next)
		if (c->type == XML_ELEMENT_NODE && !strcmp((const char *)c->name, name))
			return c;
	return NULL;
}

/* The element at a '/'-separated path below n, or NULL. */
static xmlNode *at(xmlNode *n, const char *path)
{
	char part[64];
	while (n && *path) {
		size_t k = strcspn(path, "/");
		if (k >= sizeof(part))
			return NULL;
		memcpy(part, path, k);
		part[k] = '\0';
		n = child(n, part);
		path += k + (path[k] == '/');
	}
	return n;
}

/* Text of the element at path (caller frees with xmlFree), or NULL. */
static char *text_at(xmlNode *n, const char *path)
{
	xmlNode *e = at(n, path);
	return e ? (char *)xmlNodeGetContent(e) : NULL;
}

/* The leading number of the text at path ("143771 MiB", "16x", "700.00 W"); -1 when none. */
static double num_at(xmlNode *n, const char *path)
{
	char *t = text_at(n, path);
	double v = -1;
	if (t) {
		char *end;
		double x = strtod(t, &end);
		if (end != t && x >= 0)
			v = x;
		xmlFree(t);
	}
	return v;
}

static int nvsmi_read(const struct source *src, const struct ingest_sink *sink, struct ingest_counts *counts)
{
	if (src->len > (size_t)INT32_MAX) {
		diag_error(src->path, "nvidia-smi XML larger than 2 GB");
		return -1;
	}
	xmlDoc *doc = xmlReadMemory(src->data, (int)src->len, src->path, NULL,
				    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	if (!doc) {
		const xmlError *e = xmlGetLastError();
		if (e)
			diag_error(src->path, "line %d:%d: malformed XML: %.*s", e->line, e->int2,
				   (int)strcspn(e->message ? e->message : "", "\n"), e->message ? e->message : "");
		else
			diag_error(src->path, "malformed XML");
		return -1;
	}
	int ret = -1;
	xmlNode *root = xmlDocGetRootElement(doc);
	if (!root || strcmp((const char *)root->name, "nvidia_smi_log")) {
		diag_error(src->path, "expected an <nvidia_smi_log> root element (nvidia-smi -q -x)");
		goto out;
	}
	const char *dtd = doc->intSubset && doc->intSubset->SystemID ? (const char *)doc->intSubset->SystemID : NULL;
	char *driver = text_at(root, "driver_version"), *cuda = text_at(root, "cuda_version");
	int index = 0;
	ret = 0;
	for (xmlNode *g = root->children; g && !ret; g = g->next) {
		if (g->type != XML_ELEMENT_NODE || strcmp((const char *)g->name, "gpu"))
			continue;
		char *product = text_at(g, "product_name"), *uuid = text_at(g, "uuid");
		char *bus = text_at(g, "pci/pci_bus_id");
		if (!bus)
			bus = (char *)xmlGetProp(g, (const xmlChar *)"id");
		double power = num_at(g, "gpu_power_readings/current_power_limit");
		if (power < 0)
			power = num_at(g, "power_readings/current_power_limit");
		if (power < 0)
			power = num_at(g, "power_readings/power_limit");
		struct gpu_hardware h = {
			.index = index++,
			.dtd = dtd,
			.product = product,
			.uuid = uuid,
			.pci_bus = bus,
			.driver = driver,
			.cuda = cuda,
			.memory_mib = (int64_t)num_at(g, "fb_memory_usage/total"),
			.max_graphics_mhz = (int64_t)num_at(g, "max_clocks/graphics_clock"),
			.max_sm_mhz = (int64_t)num_at(g, "max_clocks/sm_clock"),
			.max_mem_mhz = (int64_t)num_at(g, "max_clocks/mem_clock"),
			.power_limit_w = power,
			.pcie_gen_max = (int)num_at(g, "pci/pci_gpu_link_info/pcie_gen/max_link_gen"),
			.pcie_gen_cur = (int)num_at(g, "pci/pci_gpu_link_info/pcie_gen/current_link_gen"),
			.pcie_width_max = (int)num_at(g, "pci/pci_gpu_link_info/link_widths/max_link_width"),
			.pcie_width_cur = (int)num_at(g, "pci/pci_gpu_link_info/link_widths/current_link_width"),
		};
		counts->gpus++;
		counts->events++;
		if (sink->hardware && sink->hardware(sink->ctx, &h) < 0)
			ret = -1;
		xmlFree(product);
		xmlFree(uuid);
		xmlFree(bus);
	}
	xmlFree(driver);
	xmlFree(cuda);
	if (!ret && !counts->gpus) {
		diag_error(src->path, "nvidia-smi log describes no <gpu>");
		ret = -1;
	}
out:
	xmlFreeDoc(doc);
	return ret;
}

const struct reader nvsmi_reader = {
	.name = "nvidia-smi",
	.detect = nvsmi_detect,
	.read = nvsmi_read,
};
