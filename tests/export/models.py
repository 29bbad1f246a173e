"""The small networks the export tests write and run: (name, net, input shape with None for
the dynamic batch axis)."""
import minispore as ms
from minispore import nn
from minispore.examples.quick_start import LeNet5


class ResidualBlock(nn.Cell):
    def __init__(self, channels):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, pad_mode="pad", padding=1)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, pad_mode="same")
        self.bn2 = nn.BatchNorm2d(channels)
        self.relu = nn.ReLU()

    def construct(self, x):
        y = self.relu(self.bn1(self.conv1(x)))
        return self.relu(self.bn2(self.conv2(y)) + x)


class ResNetStyle(nn.Cell):
    def __init__(self, num_classes=5):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, stride=2, pad_mode="pad", padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.relu = nn.ReLU()
        self.blocks = nn.SequentialCell([ResidualBlock(8), ResidualBlock(8)])
        self.pool = nn.AvgPool2d(2, 2)
        self.fc = nn.Dense(8, num_classes)

    def construct(self, x):
        y = self.blocks(self.relu(self.bn(self.stem(x))))
        return self.fc(self.pool(y).mean(axis=(2, 3)))


class InvertedResidual(nn.Cell):
    def __init__(self, cin, cout, stride, expand):
        super().__init__()
        hidden = cin * expand
        self.use_res = stride == 1 and cin == cout
        self.body = nn.SequentialCell([
            nn.Conv2d(cin, hidden, 1), nn.BatchNorm2d(hidden), nn.ReLU6(),
            nn.Conv2d(hidden, hidden, 3, stride=stride, pad_mode="same", group=hidden),
            nn.BatchNorm2d(hidden), nn.ReLU6(),
            nn.Conv2d(hidden, cout, 1), nn.BatchNorm2d(cout)])

    def construct(self, x):
        y = self.body(x)
        return x + y if self.use_res else y


class MobileNetV2Style(nn.Cell):
    def __init__(self, num_classes=4):
        super().__init__()
        self.stem = nn.SequentialCell([nn.Conv2d(3, 8, 3, stride=2, pad_mode="same"),
                                       nn.BatchNorm2d(8), nn.ReLU6()])
        self.blocks = nn.SequentialCell([InvertedResidual(8, 8, 1, 2),
                                         InvertedResidual(8, 12, 2, 3)])
        self.fc = nn.Dense(12, num_classes)

    def construct(self, x):
        return self.fc(self.blocks(self.stem(x)).mean(axis=(2, 3)))


class LSTMClassifier(nn.Cell):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(6, 8, num_layers=1, batch_first=True)
        self.fc = nn.Dense(8, 3)

    def construct(self, x):
        out, _ = self.lstm(x)
        return self.fc(out[:, -1, :])


class TransformerClassifier(nn.Cell):
    def __init__(self):
        super().__init__()
        layer = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2)
        self.fc = nn.Dense(16, 3)

    def construct(self, x):
        return self.fc(self.encoder(x).mean(1))


def models():
    ms.set_seed(5)
    return [("lenet", LeNet5(), (None, 1, 32, 32)),
            ("resnet", ResNetStyle(), (None, 3, 16, 16)),
            ("mobilenetv2", MobileNetV2Style(), (None, 3, 16, 16)),
            ("lstm", LSTMClassifier(), (None, 5, 6)),
            ("transformer", TransformerClassifier(), (None, 4, 16))]
