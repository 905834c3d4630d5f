import torch

# Small fits run many times faster on one thread than on threads contending for 2 shared cores.
torch.set_num_threads(1)
