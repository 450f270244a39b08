
½/device:GPU:0oStream #8(MemcpyH2D)è"RÀÏŽ1Ð®Æ"*10"<*8kind_src:pinned kind_dst:device size:4096 dest:0 async:1ÙStream #7(Compute)è""€ÔË1€­â"*11"*fusion.1"Àóö4€¤è"*12"4ÀËèK´š±"*13"*jit_step"*all-reduce.1"8ÀøÊPÀ„="#*kind:device num_bytes:4 async:0"*14"ÀÀ›X€­â"*15cXLA Opsè"€ÔË1€‡§"	MemcpyH2D"fusion_1"nvjet_sm90_tst_128x128"fusion.1"QMIncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"Memset 0"wrapped_convert*correlation_id*memcpy_details*
hlo_op*
hlo_module*Memset_details
È/device:GPU:1z	Stream #9(Compute)è"ÀØˆ2€’ô"*21"4€Ð¥L€›î"*23"*jit_step"*all-reduce.1"À¥­U€‰z"*24"loop_add_fusion"QMIncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"	memcpy128*correlation_id*
hlo_module*
hlo_op
ë½	/host:CPU_python3è"À½š/€áë" "Àž†G ö§" "€Â×/€‰z"*11"*0"€ËÑ0À„="	train"fusion_1"$builtins isinstance*step_num*correlation_id*	device_id"tiny