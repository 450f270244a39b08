-- nsys_dev1.sql: run after ../formats/make_nsys.sql, it adds a second
-- device (deviceId 1) to that export, as one process driving two GPUs
-- writes it. Durations are end - start in ns:
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
  (2000, 3500, 1, 2, 21, 31, 100, 1, 2, NULL, 4),   -- gemm on device 1: 1500
  (5200, 8200, 1, 2, 21, 32, 100, 3, 4, NULL, 1);   -- nccl on device 1: 3000
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES
  (14000, 14800, 1, 2, 21, 33, 100, 2048, 2, NULL, 3, 1); -- Memcpy DtoH (Device -> Pageable) 800 on device 1
-- The launch of the device-1 gemm (correlation 31); 11 and 12 launch device 0's.
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1900, 1990, 1, 302119224788637, 31, 8, 0);
INSERT INTO TARGET_INFO_GPU VALUES (0, 1, 'Test GPU B', '0000:02:00.0', 150000000000, 4800000000000, 132, 9, 0);
