/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PCIe between host and NIC: transfers are TLPs of at most MaxReadReq
 * (reads the NIC asks for) or MaxPayloadSize (writes) payload bytes, each
 * with tlp_hdr bytes of header and framing, at the link's usable rate.
 * A read costs one round trip before its first byte (the requests of a
 * long read are pipelined behind it); a write is posted.
 */
#include "sw_timing.h"

uint64_t
sw_tm_pcie_xfer_ps(const struct sw_tm_profile *p, uint64_t bytes, uint32_t unit)
{
	uint64_t tlps;

	if (bytes == 0)
		return 0;
	tlps = unit == 0 ? 1 : (bytes + unit - 1) / unit;
	return sw_tm_link_ser_ps(bytes + tlps * p->tlp_hdr, p->pcie_mbps);
}

uint64_t
sw_tm_pcie_wqe_ps(const struct sw_tm_profile *p, uint32_t wqe_bytes, bool bf)
{
	/* BlueFlame: the WQE is written with the doorbell (write-combined
	 * MMIO); else the doorbell, then the NIC reads the WQE */
	if (bf && wqe_bytes <= p->bf_max)
		return p->pcie_wr_ns * SW_TM_PS_PER_NS + sw_tm_pcie_xfer_ps(p, wqe_bytes, 64);
	return p->pcie_wr_ns * SW_TM_PS_PER_NS + sw_tm_pcie_read_ps(p, wqe_bytes);
}

uint64_t
sw_tm_pcie_read_ps(const struct sw_tm_profile *p, uint64_t bytes)
{
	return p->pcie_rd_ns * SW_TM_PS_PER_NS + sw_tm_pcie_xfer_ps(p, bytes, p->mrrs);
}

uint64_t
sw_tm_pcie_write_ps(const struct sw_tm_profile *p, uint64_t bytes)
{
	return p->pcie_wr_ns * SW_TM_PS_PER_NS + sw_tm_pcie_xfer_ps(p, bytes, p->mps);
}
