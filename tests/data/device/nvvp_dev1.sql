-- nvvp_dev1.sql: run after ../formats/make_nvvp.sql, it adds a second
-- device (deviceId 1) to that .nvvp. Durations are end - start in ns:
INSERT INTO StringTable VALUES (5, 'Tesla K40m');
INSERT INTO CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL(start, end, deviceId, contextId, streamId, correlationId, name) VALUES
  (1500, 2700, 1, 2, 14, 6, 2),  -- gemm on device 1: 1200
  (6000, 6050, 1, 2, 14, 7, 3);  -- scale_kernel on device 1: 50
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY(copyKind, srcKind, dstKind, flags, bytes, start, end, deviceId, contextId,
  streamId, correlationId, runtimeCorrelationId) VALUES (1, 1, 3, 0, 4096, 1000, 1400, 1, 2, 14, 8, 8); -- HtoD 400
INSERT INTO CUPTI_ACTIVITY_KIND_DEVICE(globalMemoryBandwidth, globalMemorySize, numMultiprocessors,
  computeCapabilityMajor, computeCapabilityMinor, id, name) VALUES (288000000, 12079136768, 15, 3, 5, 1, 5);
