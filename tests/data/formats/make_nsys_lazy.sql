-- make_nsys_lazy.sql: an nsys 2024.5-style lazy export: only the tables that
-- have rows (no MEMCPY, MEMSET, RUNTIME or NVTX_EVENTS table at all), a
-- kernel table with a shortName only in StringIds for one row.
CREATE TABLE META_DATA_EXPORT(name TEXT NOT NULL, value TEXT);
INSERT INTO META_DATA_EXPORT VALUES('EXPORT_SCHEMA_VERSION', '3.13.2');
CREATE TABLE StringIds(id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO StringIds VALUES (1, 'flash_fwd_kernel(Params)'), (2, 'flash_fwd_kernel'), (3, 'short_only');
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, greenContextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER,
  globalPid INTEGER, demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
  (2000000000000, 2000000001500, 1, 1, NULL, 7, 1, 5, 1, 2, NULL),   -- flash 1500
  (2000000002000, 2000000002600, 1, 1, NULL, 7, 2, 5, 99, 3, NULL);  -- demangledName 99 missing: short_only 600
CREATE TABLE TARGET_INFO_GPU(vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT, totalMemory INTEGER,
  memoryBandwidth INTEGER, smCount INTEGER, computeMajor INTEGER, computeMinor INTEGER);
INSERT INTO TARGET_INFO_GPU VALUES (0, 1, 'Lazy GPU', 80000000000, 2039040000000, 108, 8, 0);
