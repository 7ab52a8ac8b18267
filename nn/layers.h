// nn/layers.h — every built-in layer, loss and container in one include.
#pragma once

#include "nn/activation.h"
#include "nn/attention.h"
#include "nn/batch_norm.h"
#include "nn/container.h"
#include "nn/conv.h"
#include "nn/dropout.h"
#include "nn/embedding.h"
#include "nn/flatten.h"
#include "nn/fold.h"
#include "nn/linear.h"
#include "nn/loss.h"
#include "nn/padding.h"
#include "nn/normalization.h"
#include "nn/pooling.h"
#include "nn/rnn.h"
#include "nn/upsampling.h"
