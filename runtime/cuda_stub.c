/* cuda_stub.c - stands in for backend_cuda.c until the CUDA backend lands:
 * neither the real driver nor the simulator is available. */
#include "ufnrt.h"

const ufn_backend_ops *ufn_cuda_backend(void)
{
    ufn_fail(UFN_ERR_NO_DRIVER, "the CUDA backend is not built into this runtime");
    return NULL;
}

const ufn_backend_ops *ufn_sim_backend(void)
{
    ufn_fail(UFN_ERR_NO_DRIVER, "the simulator backend is not built into this runtime");
    return NULL;
}
