# Sourced by the OpenCL GPU scripts: NVIDIA's OpenCL driver is in the driver's folders;
# register it with the ICD loader (OCL_ICD_VENDORS) when the image has no vendors file for it.
if ! ls /etc/OpenCL/vendors/*nvidia* >/dev/null 2>&1; then
  lib=$( (ldconfig -p | awk '/libnvidia-opencl.so.1/ {print $NF; exit}'); find /usr/local/nvidia /usr/lib /usr/lib64 -name 'libnvidia-opencl.so.1' 2>/dev/null | head -1)
  lib=$(echo "$lib" | head -1)
  echo "registering NVIDIA OpenCL: ${lib:-not found}"
  mkdir -p /tmp/vendors && echo "$lib" > /tmp/vendors/nvidia.icd
  export OCL_ICD_VENDORS=/tmp/vendors
fi
