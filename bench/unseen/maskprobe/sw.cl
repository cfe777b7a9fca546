#pragma OPENCL FP_CONTRACT OFF
// 2D shallow water, Lax-Friedrichs, one step. Written for one device: each work-item computes
// one cell from its 4 neighbours; the outer ring of the buffer is skipped.
__kernel void lf_step(__global const double* h, __global const double* hu,
                      __global const double* hv, __global const uchar* mask,
                      __global double* hn, __global double* hun, __global double* hvn,
                      const int nx, const int ny, const double dtdx, const double dtdy,
                      const double g) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  if (x >= nx || y >= ny) return;
  if (x < 1 || x >= nx - 1 || y < 1 || y >= ny - 1) return;
  const int c = x + nx * y;
  if (mask[c] != 0) {
    hn[c] = h[c];
    hun[c] = 0.0;
    hvn[c] = 0.0;
    return;
  }
  const int e = c + 1, w = c - 1, n = c + nx, s = c - nx;
  const double he = h[e], hw = h[w], hN = h[n], hs = h[s];
  const double ue = hu[e], uw = hu[w], uN = hu[n], us = hu[s];
  const double ve = hv[e], vw = hv[w], vN = hv[n], vs = hv[s];
  // x fluxes at e and w
  const double fhe = ue, fhw = uw;
  const double fue = ue * ue / he + 0.5 * g * he * he;
  const double fuw = uw * uw / hw + 0.5 * g * hw * hw;
  const double fve = ue * ve / he;
  const double fvw = uw * vw / hw;
  // y fluxes at n and s
  const double ghn = vN, ghs = vs;
  const double gun = uN * vN / hN;
  const double gus = us * vs / hs;
  const double gvn = vN * vN / hN + 0.5 * g * hN * hN;
  const double gvs = vs * vs / hs + 0.5 * g * hs * hs;
  hn[c] = 0.25 * ((he + hw) + (hN + hs)) - 0.5 * dtdx * (fhe - fhw) - 0.5 * dtdy * (ghn - ghs);
  hun[c] = 0.25 * ((ue + uw) + (uN + us)) - 0.5 * dtdx * (fue - fuw) - 0.5 * dtdy * (gun - gus);
  hvn[c] = 0.25 * ((ve + vw) + (vN + vs)) - 0.5 * dtdx * (fve - fvw) - 0.5 * dtdy * (gvn - gvs);
}

// Pointwise bottom friction on the new momenta (every cell of the buffer).
__kernel void friction(__global double* hun, __global double* hvn, const int nx, const int ny,
                       const double cf) {
  const int x = get_global_id(0);
  const int y = get_global_id(1);
  if (x >= nx || y >= ny) return;
  const int c = x + nx * y;
  hun[c] = hun[c] * (1.0 - cf);
  hvn[c] = hvn[c] * (1.0 - cf);
}
